// Preloaded with `node --import` in front of bin/router: instead of running the command line, the
// commander program prints its own command tree (names, options and whether each takes a value) as JSON.
// The docs check reads the real program this way, in one process, without a list of commands.
import { Command } from 'commander';

function describe(command) {
  const help = command.createHelp();
  return {
    name: command.name(),
    aliases: command.aliases(),
    options: help
      .visibleOptions(command)
      .flatMap((option) => [option.long, option.short].filter(Boolean).map((flag) => ({ flag, takesValue: option.required || option.optional }))),
    commands: help.visibleCommands(command).map(describe),
  };
}

function printTree() {
  process.stdout.write(JSON.stringify(describe(this)));
  return this;
}

Command.prototype.parse = printTree;
Command.prototype.parseAsync = async function parseAsync() {
  return printTree.call(this);
};

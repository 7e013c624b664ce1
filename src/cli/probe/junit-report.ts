/** The probe's results as JUnit XML, the format CI systems read: one test case per check. */
import type { ProbeResult } from './probe-session.js';

const escapeXml = (text: string): string =>
  text.replace(/[<>&"']/g, (char) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[char]!);

export function junitReport(results: readonly ProbeResult[], suite = 'router probe'): string {
  const failures = results.filter((result) => result.status === 'fail').length;
  const skipped = results.filter((result) => result.status === 'skip').length;
  const seconds = (ms: number) => (ms / 1000).toFixed(3);
  const total = results.reduce((sum, result) => sum + result.ms, 0);
  const cases = results.map((result) => {
    const open = `    <testcase classname="router.probe.${result.group}" name="${escapeXml(result.name)}" time="${seconds(result.ms)}"`;
    if (result.status === 'pass') return `${open}/>`;
    if (result.status === 'skip') return `${open}>\n      <skipped message="${escapeXml(result.detail)}"/>\n    </testcase>`;
    const body = result.failure ? `request: ${result.failure.request}\nresponse: ${result.failure.response}\nexpected: ${result.failure.expected}` : result.detail;
    return `${open}>\n      <failure message="${escapeXml(result.detail)}">${escapeXml(body)}</failure>\n    </testcase>`;
  });
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${escapeXml(suite)}" tests="${results.length}" failures="${failures}" skipped="${skipped}" time="${seconds(total)}">`,
    `  <testsuite name="${escapeXml(suite)}" tests="${results.length}" failures="${failures}" skipped="${skipped}" time="${seconds(total)}">`,
    ...cases,
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}

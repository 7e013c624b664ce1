import { RouterError } from '../../core/errors.js';
import type { ChatContentPart, ChatMessage } from '../../formats/openai-chat.js';
import type { AnthropicUserBlock } from './anthropic-types.js';

const DATA_URL = /^data:([^;,]+);base64,(.+)$/s;

/**
 * Chat user content → Anthropic user blocks. `param` names the message (e.g. `messages[2]`) so a
 * rejected part points at the exact field. Empty text is skipped: quirk(anthropic): text blocks must
 * be non-empty, while OpenAI accepts "" without complaint.
 */
export function translateUserContent(content: ChatMessage['content'], param: string): AnthropicUserBlock[] {
  if (content === undefined || content === null) return [];
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }];
  const blocks: AnthropicUserBlock[] = [];
  content.forEach((part, index) => {
    const block = translatePart(part, `${param}.content[${index}]`);
    if (block) blocks.push(block);
  });
  return blocks;
}

function translatePart(part: ChatContentPart, param: string): AnthropicUserBlock | undefined {
  switch (part.type) {
    case 'text':
      if (part.text === '') return undefined;
      return part.cache_control ? { type: 'text', text: part.text, cache_control: part.cache_control } : { type: 'text', text: part.text };
    case 'refusal':
      return part.refusal === '' ? undefined : { type: 'text', text: part.refusal };
    case 'image_url':
      return imageBlock(part.image_url.url, param);
    case 'file':
      return documentBlock(part.file, param);
    case 'input_audio':
      throw new RouterError('unsupported_parameter', 'Anthropic models do not accept audio input.', { param });
    default:
      throw new RouterError('invalid_request', 'Unknown content part type.', { param: `${param}.type` });
  }
}

function imageBlock(url: string, param: string): AnthropicUserBlock {
  const data = DATA_URL.exec(url);
  if (data) return { type: 'image', source: { type: 'base64', media_type: data[1] ?? '', data: data[2] ?? '' } };
  if (/^https?:\/\//i.test(url)) return { type: 'image', source: { type: 'url', url } };
  throw new RouterError('invalid_request', 'An image URL must be an http(s) URL or a base64 data URL.', {
    param: `${param}.image_url.url`,
  });
}

function documentBlock(file: { file_data?: string; file_id?: string }, param: string): AnthropicUserBlock {
  const data = file.file_data === undefined ? null : DATA_URL.exec(file.file_data);
  if (data) return { type: 'document', source: { type: 'base64', media_type: data[1] ?? '', data: data[2] ?? '' } };
  throw new RouterError(
    'unsupported_parameter',
    'Files must be sent inline as a base64 data URL in file.file_data; OpenAI file ids do not exist at Anthropic.',
    { param: `${param}.file` },
  );
}

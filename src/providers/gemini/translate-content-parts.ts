import { RouterError } from '../../core/errors.js';
import type { ChatContentPart, ChatMessage } from '../../formats/openai-chat.js';
import type { GeminiPart } from './gemini-types.js';

const DATA_URL = /^data:([^;,]+)[^,]*;base64,(.*)$/s;

/** Keyed by the extension of a URL the caller sends: a Map, so `.constructor` finds nothing. */
const IMAGE_TYPES: ReadonlyMap<string, string> = new Map([
  ['png', 'image/png'],
  ['jpg', 'image/jpeg'],
  ['jpeg', 'image/jpeg'],
  ['gif', 'image/gif'],
  ['webp', 'image/webp'],
  ['heic', 'image/heic'],
  ['heif', 'image/heif'],
]);

/**
 * Chat message content (string or parts) → Gemini parts. Empty text is dropped because Gemini rejects
 * empty text parts. `param` names the message for error messages, e.g. `messages[2].content`.
 */
export function translateContentParts(content: ChatMessage['content'], param: string): GeminiPart[] {
  if (content === undefined || content === null) return [];
  if (typeof content === 'string') return content === '' ? [] : [{ text: content }];
  return content.flatMap((part, index) => translatePart(part, `${param}[${index}]`));
}

function translatePart(part: ChatContentPart, param: string): GeminiPart[] {
  switch (part.type) {
    case 'text':
      return part.text === '' ? [] : [{ text: part.text }];
    case 'refusal':
      return part.refusal === '' ? [] : [{ text: part.refusal }];
    case 'image_url':
      return [imagePart(part.image_url.url)];
    case 'input_audio':
      return [{ inlineData: { mimeType: `audio/${part.input_audio.format}`, data: part.input_audio.data } }];
    case 'file':
      return [filePart(part.file, param)];
    default:
      throw new RouterError('unsupported_parameter', `Content parts of type '${(part as { type: string }).type}' cannot be sent to Gemini.`, { param });
  }
}

function imagePart(url: string): GeminiPart {
  const inline = DATA_URL.exec(url);
  if (inline) return { inlineData: { mimeType: inline[1] ?? '', data: inline[2] ?? '' } };
  const mimeType = guessImageType(url);
  return { fileData: mimeType === undefined ? { fileUri: url } : { mimeType, fileUri: url } };
}

function filePart(file: { file_data?: string; file_id?: string }, param: string): GeminiPart {
  const inline = file.file_data === undefined ? null : DATA_URL.exec(file.file_data);
  if (!inline) {
    throw new RouterError('unsupported_parameter', 'Gemini only accepts files sent inline as base64 data URLs in `file.file_data`.', { param });
  }
  return { inlineData: { mimeType: inline[1] ?? '', data: inline[2] ?? '' } };
}

function guessImageType(url: string): string | undefined {
  const path = url.split(/[?#]/, 1)[0] ?? '';
  const extension = /\.([a-z0-9]+)$/i.exec(path)?.[1]?.toLowerCase();
  return extension === undefined ? undefined : IMAGE_TYPES.get(extension);
}

/** The text of a content that may only hold text (system, developer and tool messages). */
export function textOf(content: ChatMessage['content'], param: string): string {
  return translateContentParts(content, param)
    .map((part) => {
      if (part.text === undefined) {
        throw new RouterError('unsupported_parameter', 'Only text content is supported in this message for Gemini.', { param });
      }
      return part.text;
    })
    .join('');
}

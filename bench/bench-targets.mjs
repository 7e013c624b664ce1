/**
 * What the load sends to each target: the same small chat request (a system and a user message), with
 * the model each target expects (chat completions, or the same as a Responses request) and the credential it needs. Direct and proxy traffic carry a dummy
 * upstream key; router traffic carries the benchmark account's router key. Every request names itself
 * with a User-Agent, as the router's edge rule requires.
 */
const USER_AGENT = 'llm-router-bench/1.0 (+bench/README.md)';
const MESSAGES = [
  { role: 'system', content: 'You are a concise assistant. Answer in one short paragraph.' },
  { role: 'user', content: 'Explain in two sentences why a gateway in front of an LLM API should add as little latency as possible.' },
];

function target(url, bearer, model) {
  return {
    kind: 'chat',
    url,
    headers: { 'content-type': 'application/json', 'user-agent': USER_AGENT, authorization: `Bearer ${bearer}` },
    body: JSON.stringify({ model, messages: MESSAGES, max_tokens: 128, temperature: 0.2 }),
    streamBody: JSON.stringify({ model, messages: MESSAGES, max_tokens: 128, temperature: 0.2, stream: true }),
    model,
  };
}

/** @param {{ upstreamOrigin: string, proxyOrigin: string, router: { url: string, apiKey: string } }} origins */
export function benchTargets({ upstreamOrigin, proxyOrigin, router }) {
  const upstreamKey = 'sk-bench-direct-0000000000000000';
  return {
    direct: target(`${upstreamOrigin}/v1/chat/completions`, upstreamKey, 'gpt-4.1'),
    proxy: target(`${proxyOrigin}/v1/chat/completions`, upstreamKey, 'gpt-4.1'),
    router: target(`${router.url}/v1/chat/completions`, router.apiKey, 'router/frontier'),
  };
}

/** The same question as a Responses request (`input` items, `max_output_tokens`): /v1/responses of each target. */
function responsesTarget(url, bearer, model) {
  const request = { model, input: MESSAGES, max_output_tokens: 128, temperature: 0.2 };
  return {
    kind: 'responses',
    url,
    headers: { 'content-type': 'application/json', 'user-agent': USER_AGENT, authorization: `Bearer ${bearer}` },
    body: JSON.stringify(request),
    streamBody: JSON.stringify({ ...request, stream: true }),
    model,
  };
}

/** @param {{ upstreamOrigin: string, proxyOrigin: string, router: { url: string, apiKey: string } }} origins */
export function responsesTargets({ upstreamOrigin, proxyOrigin, router }) {
  const upstreamKey = 'sk-bench-direct-0000000000000000';
  return {
    direct: responsesTarget(`${upstreamOrigin}/v1/responses`, upstreamKey, 'gpt-4.1'),
    proxy: responsesTarget(`${proxyOrigin}/v1/responses`, upstreamKey, 'gpt-4.1'),
    router: responsesTarget(`${router.url}/v1/responses`, router.apiKey, 'router/frontier'),
  };
}

/** The answer's text: a chat.completion's message, or a Response's first output_text. */
function answerText(kind, answer) {
  if (kind === 'responses') return answer?.object === 'response' ? answer.output?.[0]?.content?.[0]?.text : undefined;
  return answer?.choices?.[0]?.message?.content;
}

/** One request before any load: the target must answer a real chat.completion (or Response) for the model it was asked. */
export async function checkTarget({ kind = 'chat', url, headers, body, model }) {
  const response = await fetch(url, { method: 'POST', headers, body, signal: AbortSignal.timeout(10_000) });
  const text = await response.text();
  let completion;
  try {
    completion = JSON.parse(text);
  } catch {
    completion = undefined;
  }
  const content = answerText(kind, completion);
  if (response.status !== 200 || typeof content !== 'string' || completion.model !== model) {
    throw new Error(`${url} did not answer a ${kind === 'responses' ? 'Response' : 'chat.completion'} for ${model}: HTTP ${response.status} ${text.slice(0, 300)}`);
  }
}

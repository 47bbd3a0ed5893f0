// Streams a chat completion with the official `openai` npm client and prints what it got.
// Usage: node openai-stream.js NODE_MODULES_DIR BASE_URL MAX_TOKENS
const path = require('path');
const [dir, baseURL, maxTokens] = process.argv.slice(2);
const mod = require(path.join(dir, 'openai'));
const OpenAI = mod.OpenAI || mod.default || mod;

(async () => {
  const client = new OpenAI({ baseURL: baseURL + '/v1', apiKey: 'sk-simulated', maxRetries: 0 });
  const stream = await client.chat.completions.create({
    model: 'balanceroute-sim',
    messages: [{ role: 'user', content: 'Tell me about barriers.' }],
    max_tokens: Number(maxTokens),
    stream: true,
    stream_options: { include_usage: true },
    ignore_eos: true,
  });
  let content = '';
  let contentChunks = 0;
  let usage = null;
  let finishReason = null;
  let role = null;
  for await (const chunk of stream) {
    if (chunk.usage) usage = chunk.usage;
    for (const choice of chunk.choices) {
      if (choice.delta && choice.delta.role) role = choice.delta.role;
      if (choice.delta && choice.delta.content) { content += choice.delta.content; contentChunks++; }
      if (choice.finish_reason) finishReason = choice.finish_reason;
    }
  }
  console.log(JSON.stringify({ content, contentChunks, usage, finishReason, role }));
})().catch((e) => { console.error(String(e && e.stack || e)); process.exit(1); });

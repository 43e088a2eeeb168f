import { startFakeDiscord } from './tests/fake-discord/fake-discord.ts';
import { LlmStandIn } from './tests/support/llm-stand-in/llm-stand-in.ts';
import { textScript } from './tests/support/llm-stand-in/script.ts';
import { createWorld } from './tests/bot/support/bot-harness.ts';
import { writeFileSync } from 'node:fs';
const discord = await startFakeDiscord({});
const llm = await LlmStandIn.start();
const world = createWorld(discord);
llm.handle(() => textScript('Hello there, friend.'));
writeFileSync('/tmp/scratch/env', [
  `DISCORD_TOKEN=${discord.token}`, `DISCORD_API_URL=${discord.apiUrl}`,
  `OPENAI_BASE_URL=${llm.openAIBaseUrl}`, 'OPENAI_API_KEY=sk-test', 'DEFAULT_PROVIDER=openai', 'DEFAULT_MODEL=gpt-5.4-mini', 'LOG_FORMAT=json', 'LOG_LEVEL=debug',
].join('\n') + '\n');
writeFileSync('/tmp/scratch/world.json', JSON.stringify({ channel: world.channel.id, alice: world.alice.id, bot: discord.botUserId }));
process.stdin.on('data', (d) => {
  const text = d.toString().trim();
  if (text) discord.postMessage({ authorId: world.alice.id, channelId: world.channel.id, content: `<@${discord.botUserId}> ${text}` });
});
console.log('world up');

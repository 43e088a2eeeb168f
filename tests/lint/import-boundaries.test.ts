import path from 'node:path';
import { RuleTester } from 'eslint';
import tseslint from 'typescript-eslint';
import { afterAll, describe, it } from 'vitest';
import boundaries from '../../eslint/import-boundaries.js';

// RuleTester reports through the test framework's hooks.
Object.assign(RuleTester, { afterAll, describe, it });

const tester = new RuleTester({
  languageOptions: { parser: tseslint.parser, ecmaVersion: 2023, sourceType: 'module' },
});
const root = process.cwd();
const file = (relative: string): string => path.join(root, relative);
const rule = boundaries.rules['import-boundaries'];

tester.run('import-boundaries', rule, {
  valid: [
    { code: "import { Client } from 'discord.js';", filename: file('src/bot/discord-client.ts') },
    { code: "import OpenAI from 'openai';", filename: file('src/providers/openai/adapter.ts') },
    { code: "import pg from 'pg';", filename: file('src/db/database.ts') },
    {
      code: "import type { StreamPart } from '../core/stream-part.ts';",
      filename: file('src/stream/buffer.ts'),
    },
    {
      code: "import { humanize } from '../humanizer/humanize.ts';",
      filename: file('src/stream/pipeline.ts'),
    },
    { code: "import { Client } from 'discord.js';", filename: file('src/stream/buffer.test.ts') },
    {
      code: "import { Client } from 'discord.js';",
      filename: file('tests/fake-discord/server.ts'),
    },
    {
      code: "import { SecretBox } from '../security/secret-box.ts';",
      filename: file('src/db/repo.ts'),
    },
    {
      code: "import { chunkMessage } from '../reply/chunker.ts';",
      filename: file('src/stream/turn/stream-orchestrator.ts'),
    },
    {
      code: "import { loadConfig } from './app/config/config.ts';",
      filename: file('src/main.ts'),
    },
    {
      code: "import { DiscordBot } from '../../bot/discord-bot.ts';",
      filename: file('src/app/lifecycle/discord-phase.ts'),
    },
    {
      code: "import type { AcceptedMessage } from '../intake/accepted-message.ts';",
      filename: file('src/bot/turns/turn-runner.ts'),
    },
    {
      code: "import { TurnRunner } from './turns/turn-runner.ts';",
      filename: file('src/bot/bot-assembly.ts'),
    },
  ],
  invalid: [
    {
      code: "import { Client } from 'discord.js';",
      filename: file('src/tools/react.ts'),
      errors: 1,
    },
    {
      code: "import { REST } from '@discordjs/rest';",
      filename: file('src/providers/x.ts'),
      errors: 1,
    },
    {
      code: "import OpenAI from 'openai';",
      filename: file('src/providers/anthropic/adapter.ts'),
      errors: 1,
    },
    {
      code: "import { GoogleGenAI } from '@google/genai';",
      filename: file('src/bot/x.ts'),
      errors: 1,
    },
    { code: "import pg from 'pg';", filename: file('src/bot/x.ts'), errors: 1 },
    {
      code: "import { sql } from 'drizzle-orm';",
      filename: file('src/tools/memory.ts'),
      errors: 1,
    },
    {
      code: "import { Client } from '@modelcontextprotocol/sdk/client/index.js';",
      filename: file('src/bot/x.ts'),
      errors: 1,
    },
    {
      code: "import { readFile } from 'node:fs';",
      filename: file('src/stream/buffer.ts'),
      errors: 1,
    },
    { code: "import { z } from 'zod';", filename: file('src/humanizer/humanize.ts'), errors: 1 },
    {
      code: "import { openDatabase } from '../db/database.ts';",
      filename: file('src/stream/x.ts'),
      errors: 1,
    },
    {
      code: "import { createDiscordClient } from '../bot/discord-client.ts';",
      filename: file('src/providers/x.ts'),
      errors: 1,
    },
    {
      code: "import { loadConfig } from '../config.ts';",
      filename: file('src/core/x.ts'),
      errors: 1,
    },
    { code: "export * from '../bot/x.ts';", filename: file('src/db/x.ts'), errors: 1 },
    {
      code: "import type { Config } from '../../app/config/config.ts';",
      filename: file('src/bot/intake/x.ts'),
      errors: 1,
    },
    {
      code: "import { TurnRunner } from '../turns/turn-runner.ts';",
      filename: file('src/bot/intake/message-router.ts'),
      errors: 1,
    },
    {
      code: "import type { MessageRouter } from '../intake/message-router.ts';",
      filename: file('src/bot/delivery/discord-sink.ts'),
      errors: 1,
    },
    {
      code: "import { stopReply } from '../commands/conversation/stop-command.ts';",
      filename: file('src/bot/stops/stop-button.ts'),
      errors: 1,
    },
    {
      code: "import { ReplyDelivery } from '../reply/reply-delivery.ts';",
      filename: file('src/stream/blocks/block-buffer.ts'),
      errors: 1,
    },
    {
      code: "import { StopRegistry } from '../stop/stop-registry.ts';",
      filename: file('src/stream/reply/chunker.ts'),
      errors: 1,
    },
    {
      code: "import { readFile } from 'node:fs';",
      filename: file('src/stream/stop/stop-registry.ts'),
      errors: 1,
    },
    { code: "const m = await import('discord.js');", filename: file('src/tools/x.ts'), errors: 1 },
  ],
});

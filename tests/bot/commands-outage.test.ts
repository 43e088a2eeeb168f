/**
 * Slash commands during a database outage, through the real bot process, discord.js and the
 * loopback Discord, on a PostgreSQL server of the test's own (stopped under the bot): a
 * command's claim is held through the outage like a message's, and the command is answered.
 * Skipped (and says why) without the PostgreSQL binaries.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findPostgresBinaries, startPgCluster, type PgCluster } from '../support/pg-cluster.ts';
import { createWorld, startHarness, type BotHarness } from './support/bot-harness.ts';
import { commandsRegistered } from './support/slash-commands.ts';

const binaries = findPostgresBinaries();
const SKIPPED = 'skipped' in binaries ? ` (skipped: ${binaries.skipped})` : '';

describe.skipIf(SKIPPED !== '')(`slash commands while the database is away${SKIPPED}`, () => {
  let cluster: PgCluster | undefined;
  let harness: BotHarness<ReturnType<typeof createWorld>> | undefined;
  beforeAll(async () => {
    cluster = await startPgCluster();
    harness = await startHarness({
      databaseKind: 'postgres',
      serverUrl: cluster.url,
      setup: (discord) => createWorld(discord),
    });
    await commandsRegistered(harness.discord, harness.bot);
  }, 240_000);
  afterAll(async () => {
    await harness?.dispose();
    await cluster?.dispose();
  });

  it('/stop gets its answer while PostgreSQL is stopped', async () => {
    if (harness === undefined || cluster === undefined) throw new Error('not started');
    const { discord, world } = harness;
    await cluster.stop();
    try {
      const stop = discord.invokeSlashCommand({
        userId: world.alice.id,
        channelId: world.channel.id,
        command: 'stop',
      });
      const answer = await stop.waitForOriginal();
      expect(answer.content).toContain('not writing anything');
    } finally {
      await cluster.start();
    }
  });
});

/**
 * The claims a turn records for the owed messages its request carries (`carryClaims`), and
 * their undoing when a retry shows less (`uncarryClaims`), on both databases.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  carryClaims,
  claimMessage,
  settleAnswered,
  uncarryClaims,
  unsettledClaims,
} from '../../src/db/claim-repository.ts';
import { testBackends, type TestDatabase } from '../support/test-database.ts';

const CHANNEL = '823456789012345678';
const REPLY_TO = '813456789012345600';

describe.each(testBackends())('carried claims on $name', (backend) => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await backend.open();
    await database.migrate();
  });
  afterAll(() => database.dispose());

  const owed = async () =>
    new Map(
      (await unsettledClaims(database.db, new Date(0))).map((claim) => [claim.messageId, claim]),
    );

  it('claims an unclaimed carried message for this process, names the reply on a claimed one, leaves a settled one', async () => {
    const [unclaimed, claimed, settled] = [
      '813456789012345601',
      '813456789012345602',
      '813456789012345603',
    ];
    await claimMessage(database.db, { key: claimed, instanceId: 'released', channelId: CHANNEL });
    await settleAnswered(database.db, { keys: [settled], channelId: CHANNEL, instanceId: 'other' });
    const made = await carryClaims(database.db, {
      keys: [unclaimed, claimed, settled],
      channelId: CHANNEL,
      replyTo: REPLY_TO,
      instanceId: 'me',
    });
    expect(made).toEqual([unclaimed]);
    const claims = await owed();
    expect(claims.get(unclaimed)).toMatchObject({
      instanceId: 'me',
      channelId: CHANNEL,
      carriedBy: REPLY_TO,
    });
    // Whose it is does not change: a handed-back claim stays anyone's to recover.
    expect(claims.get(claimed)).toMatchObject({ instanceId: 'released', carriedBy: REPLY_TO });
    expect(claims.has(settled)).toBe(false);
    // A backfill meeting the carried message meanwhile cannot claim it: no second answer.
    expect(
      await claimMessage(database.db, { key: unclaimed, instanceId: 'me', channelId: CHANNEL }),
    ).toBe(false);
  });

  it('carrying again what is carried makes nothing new', async () => {
    const key = '813456789012345611';
    const carry = { keys: [key], channelId: CHANNEL, replyTo: REPLY_TO, instanceId: 'me' };
    expect(await carryClaims(database.db, carry)).toEqual([key]);
    expect(await carryClaims(database.db, { ...carry, replyTo: '813456789012345699' })).toEqual([]);
    expect((await owed()).get(key)?.carriedBy).toBe('813456789012345699');
    expect(await carryClaims(database.db, { ...carry, keys: [] })).toEqual([]);
  });

  it('undoes a carry: a claim it made is removed, one it found only stops naming the reply', async () => {
    const [made, found] = ['813456789012345621', '813456789012345622'];
    await claimMessage(database.db, { key: found, instanceId: 'me', channelId: CHANNEL });
    const carry = { keys: [made, found], channelId: CHANNEL, replyTo: REPLY_TO, instanceId: 'me' };
    expect(await carryClaims(database.db, carry)).toEqual([made]);
    await uncarryClaims(database.db, {
      keys: [made, found],
      made: [made],
      replyTo: REPLY_TO,
      instanceId: 'me',
    });
    const claims = await owed();
    expect(claims.has(made)).toBe(false);
    expect(claims.get(found)).toMatchObject({ instanceId: 'me', carriedBy: undefined });
    // Unclaimed again: the next to hear it (a backfill, a later turn) may claim it.
    expect(
      await claimMessage(database.db, { key: made, instanceId: 'me', channelId: CHANNEL }),
    ).toBe(true);
  });
});

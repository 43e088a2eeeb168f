import { describe, expect, it } from 'vitest';
import { isStopRequest, StopRegistry, type StopCandidate } from './stop-registry.ts';

const message = (overrides: Partial<StopCandidate>): StopCandidate => ({
  channelId: 'channel-1',
  messageId: 'message-9',
  authorId: 'alice',
  authorName: 'Alice',
  content: 'stop',
  authorIsModerator: false,
  addressForms: ['@Tomodachi'],
  ...overrides,
});

describe('StopRegistry', () => {
  it('stops the live turn when the member being answered says a stop phrase on its own', () => {
    const registry = new StopRegistry();
    const live = registry.begin({
      channelId: 'channel-1',
      turnId: 'turn-1',
      requesterIds: ['alice'],
    });
    const decision = registry.consider(message({ content: 'okay stop, I get it' }));
    expect(decision.stopped).toBe(true);
    expect(live.signal.aborted).toBe(true);
    expect(isStopRequest(live.signal.reason)).toBe(true);
    expect(live.signal.reason).toMatchObject({
      turnId: 'turn-1',
      authorName: 'Alice',
      content: 'okay stop, I get it',
    });
  });

  it("ignores another member's stop words, even a plain 'wait'", () => {
    const registry = new StopRegistry();
    const live = registry.begin({
      channelId: 'channel-1',
      turnId: 'turn-1',
      requesterIds: ['alice'],
    });
    expect(registry.consider(message({ authorId: 'bob', content: 'wait, what?' }))).toEqual({
      stopped: false,
      reason: 'not-requester',
    });
    expect(registry.consider(message({ authorId: 'bob', content: 'stop' }))).toMatchObject({
      stopped: false,
    });
    expect(live.signal.aborted).toBe(false);
  });

  it("lets a moderator stop anyone's turn", () => {
    const registry = new StopRegistry();
    const live = registry.begin({
      channelId: 'channel-1',
      turnId: 'turn-1',
      requesterIds: ['alice'],
    });
    expect(
      registry.consider(message({ authorId: 'mod', authorIsModerator: true, content: 'enough' }))
        .stopped,
    ).toBe(true);
    expect(live.signal.aborted).toBe(true);
  });

  it('answers a question instead of swallowing it, even one addressed to the bot', () => {
    const registry = new StopRegistry();
    const live = registry.begin({
      channelId: 'channel-1',
      turnId: 'turn-1',
      requesterIds: ['alice'],
    });
    for (const content of [
      'wait, what about X?',
      '@Tomodachi wait, what about X?',
      '@Tomodachi how do I cancel my order?',
      'stop sending me emails is what he said',
    ]) {
      expect(registry.consider(message({ content }))).toEqual({
        stopped: false,
        reason: 'not-a-stop',
      });
    }
    expect(live.signal.aborted).toBe(false);
    expect(registry.consider(message({ content: '@Tomodachi stop, please' })).stopped).toBe(true);
    expect(live.signal.aborted).toBe(true);
  });

  it('stops once: a second stop while the first winds down starts nothing', () => {
    const registry = new StopRegistry();
    registry.begin({ channelId: 'channel-1', turnId: 'turn-1', requesterIds: ['alice'] });
    expect(registry.consider(message({})).stopped).toBe(true);
    expect(registry.consider(message({}))).toEqual({ stopped: false, reason: 'already-stopping' });
  });

  it('keeps channels apart and forgets a turn when it ends, without unregistering its successor', () => {
    const registry = new StopRegistry();
    const first = registry.begin({
      channelId: 'channel-1',
      turnId: 'turn-1',
      requesterIds: ['alice'],
    });
    expect(registry.consider(message({ channelId: 'channel-2' }))).toEqual({
      stopped: false,
      reason: 'no-live-turn',
    });
    const second = registry.begin({
      channelId: 'channel-1',
      turnId: 'turn-2',
      requesterIds: ['bob'],
    });
    first.end();
    expect(registry.liveTurn('channel-1')).toEqual({ turnId: 'turn-2', requesterIds: ['bob'] });
    second.end();
    expect(registry.liveTurn('channel-1')).toBeUndefined();
    expect(registry.consider(message({}))).toEqual({ stopped: false, reason: 'no-live-turn' });
  });

  describe('stopByCommand', () => {
    const command = { channelId: 'channel-1', authorId: 'alice', authorIsModerator: false };

    it('stops the requester’s turn without a stop phrase, with a reason that is no StopRequest', () => {
      const registry = new StopRegistry();
      const live = registry.begin({
        channelId: 'channel-1',
        turnId: 'turn-1',
        requesterIds: ['alice'],
      });
      expect(registry.stopByCommand(command)).toEqual({ stopped: true, turnId: 'turn-1' });
      expect(live.signal.aborted).toBe(true);
      expect(isStopRequest(live.signal.reason)).toBe(false);
      expect(live.signal.reason).toEqual({
        kind: 'command-stop',
        turnId: 'turn-1',
        channelId: 'channel-1',
        authorId: 'alice',
      });
    });

    it('refuses another member, lets a moderator stop, and stops only once', () => {
      const registry = new StopRegistry();
      const live = registry.begin({
        channelId: 'channel-1',
        turnId: 'turn-1',
        requesterIds: ['alice'],
      });
      expect(registry.stopByCommand({ ...command, authorId: 'bob' })).toEqual({
        stopped: false,
        reason: 'not-requester',
      });
      expect(live.signal.aborted).toBe(false);
      expect(
        registry.stopByCommand({ ...command, authorId: 'mod', authorIsModerator: true }),
      ).toEqual({ stopped: true, turnId: 'turn-1' });
      expect(registry.stopByCommand(command)).toEqual({
        stopped: false,
        reason: 'already-stopping',
      });
      expect(registry.consider(message({}))).toEqual({
        stopped: false,
        reason: 'already-stopping',
      });
    });

    it('with a turn id (the Stop button), stops that turn only, never a newer one', () => {
      const registry = new StopRegistry();
      const live = registry.begin({
        channelId: 'channel-1',
        turnId: 'turn-2',
        requesterIds: ['alice'],
      });
      expect(registry.stopByCommand({ ...command, turnId: 'turn-1' })).toEqual({
        stopped: false,
        reason: 'no-live-turn',
      });
      expect(live.signal.aborted).toBe(false);
      expect(registry.stopByCommand({ ...command, authorId: 'bob', turnId: 'turn-2' })).toEqual({
        stopped: false,
        reason: 'not-requester',
      });
      expect(registry.stopByCommand({ ...command, turnId: 'turn-2' })).toEqual({
        stopped: true,
        turnId: 'turn-2',
      });
      expect(live.signal.aborted).toBe(true);
    });

    it('says when there is nothing to stop in the channel', () => {
      const registry = new StopRegistry();
      registry.begin({ channelId: 'channel-2', turnId: 'turn-1', requesterIds: ['alice'] });
      expect(registry.stopByCommand(command)).toEqual({ stopped: false, reason: 'no-live-turn' });
    });
  });

  it('lets every member a coalesced turn answers stop it, and nobody else', () => {
    const registry = new StopRegistry();
    const live = registry.begin({
      channelId: 'channel-1',
      turnId: 'turn-1',
      requesterIds: ['alice', 'bob'],
    });
    expect(registry.consider(message({ authorId: 'carol', content: 'stop' }))).toEqual({
      stopped: false,
      reason: 'not-requester',
    });
    expect(live.signal.aborted).toBe(false);
    expect(registry.consider(message({ authorId: 'alice', content: 'stop' })).stopped).toBe(true);
    const second = registry.begin({
      channelId: 'channel-1',
      turnId: 'turn-2',
      requesterIds: ['alice', 'bob'],
    });
    expect(
      registry.stopByCommand({ channelId: 'channel-1', authorId: 'bob', authorIsModerator: false }),
    ).toEqual({ stopped: true, turnId: 'turn-2' });
    expect(second.signal.aborted).toBe(true);
  });
});

describe('StopRegistry in a scene of characters', () => {
  const STAGE = [
    { id: 'id-alice', name: 'Alice' },
    { id: 'id-bob', name: 'Bob' },
  ];

  function sceneTurn(registry: StopRegistry, speakerId: string) {
    const silenced: string[] = [];
    const live = registry.begin({
      channelId: 'channel-1',
      turnId: 'turn-1',
      requesterIds: ['mika'],
      cast: { speakerId, stage: STAGE, silence: (ids) => silenced.push(...ids) },
    });
    return { live, silenced };
  }

  it('stops only the turn of the character a stop names, and silences it for the scene', () => {
    const registry = new StopRegistry();
    const { live, silenced } = sceneTurn(registry, 'id-alice');
    const decision = registry.consider(message({ authorId: 'mika', content: 'Alice, stop' }));
    expect(decision).toMatchObject({ stopped: true, request: { characterIds: ['id-alice'] } });
    expect(live.signal.aborted).toBe(true);
    expect(silenced).toEqual(['id-alice']);
  });

  it('lets the speaking character go on when the stop names one still to speak: silenced', () => {
    const registry = new StopRegistry();
    const { live, silenced } = sceneTurn(registry, 'id-alice');
    const decision = registry.consider(message({ authorId: 'mika', content: 'ボブ、止めて' }));
    expect(decision).toEqual({ stopped: false, reason: 'not-a-stop' });
    const named = registry.consider(message({ authorId: 'mika', content: 'Bob, stop please' }));
    expect(named).toMatchObject({ stopped: true, replyStopped: false });
    expect(live.signal.aborted).toBe(false);
    expect(silenced).toEqual(['id-bob']);
  });

  it('stops a character’s turn with a plain stop, and only for the member or a moderator', () => {
    const registry = new StopRegistry();
    const { live, silenced } = sceneTurn(registry, 'id-bob');
    expect(registry.consider(message({ authorId: 'ren', content: 'Bob, stop' }))).toEqual({
      stopped: false,
      reason: 'not-requester',
    });
    expect(silenced).toEqual([]);
    expect(registry.consider(message({ authorId: 'mika', content: 'stop' }))).toMatchObject({
      stopped: true,
    });
    expect(live.signal.aborted).toBe(true);
    expect(live.signal.reason).not.toHaveProperty('characterIds');
  });

  it('is no stop of the bot’s own turn when it names a character', () => {
    const registry = new StopRegistry();
    const live = registry.begin({
      channelId: 'channel-1',
      turnId: 'turn-1',
      requesterIds: ['mika'],
    });
    const addressees = [{ id: 'id-alice', names: ['Alice'] }];
    expect(registry.isStop(message({ content: 'Alice, stop', addressees }))).toBe(true);
    expect(
      registry.consider(message({ authorId: 'mika', content: 'Alice, stop', addressees })),
    ).toEqual({ stopped: false, reason: 'not-a-stop' });
    expect(live.signal.aborted).toBe(false);
  });
});

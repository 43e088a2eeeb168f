import { describe, expect, it } from 'vitest';
import { settle } from '../testing/manual-clock.ts';
import { RecordingSink } from '../testing/recording-sink.ts';
import { GatedSink } from './gated-sink.ts';

function gate() {
  let open!: (value: boolean) => void;
  const settled = new Promise<boolean>((resolve) => (open = resolve));
  return { settled, open };
}

describe('GatedSink', () => {
  it('holds the reply’s writes until the gate opens, then hands them on in order', async () => {
    const sink = new RecordingSink();
    const { settled, open } = gate();
    const gated = new GatedSink(sink, settled);
    gated.setTyping(true);
    gated.pushMessage('one');
    gated.updateCurrent('two');
    gated.sealCurrent();
    gated.endOfReply();
    // Typing is no write of the reply: it passes at once.
    expect(sink.calls).toEqual([{ type: 'typing', active: true }]);
    open(true);
    await settle();
    gated.pushMessage('three');
    expect(sink.calls.map((call) => call.type)).toEqual([
      'typing',
      'push',
      'update',
      'seal',
      'end',
      'push',
    ]);
    expect(await gated.flush()).toMatchObject({ messageIds: ['m1', 'm2', 'm3'] });
  });

  it('drops everything when the gate closes, and flushes nothing', async () => {
    const sink = new RecordingSink();
    const { settled, open } = gate();
    const gated = new GatedSink(sink, settled);
    gated.pushMessage('held');
    open(false);
    await settle();
    gated.pushMessage('later');
    expect(await gated.flush()).toEqual({ messageIds: [], failure: undefined });
    expect(sink.calls).toEqual([]);
  });

  it('treats a failed gate as closed', async () => {
    const sink = new RecordingSink();
    const gated = new GatedSink(sink, Promise.reject(new Error('no')));
    gated.pushMessage('held');
    expect(await gated.flush()).toEqual({ messageIds: [], failure: undefined });
    expect(sink.messages).toEqual([]);
  });

  it('drops what it holds on a stop, and passes the stop on once open', async () => {
    const sink = new RecordingSink();
    const { settled, open } = gate();
    const gated = new GatedSink(sink, settled);
    gated.pushMessage('held');
    gated.discardPending();
    open(true);
    await settle();
    expect(sink.calls).toEqual([]);
    gated.discardPending();
    expect(sink.calls).toEqual([{ type: 'discard' }]);
  });
});

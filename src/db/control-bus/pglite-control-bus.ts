import type { PGlite } from '@electric-sql/pglite';
import { LocalControlBus, type ControlBus } from '../../core/control-bus.ts';
import type { Logger } from '../../core/logger.ts';
import { CONTROL_CHANNEL, decodeEnvelope, encodeEnvelope } from './control-envelope.ts';

/**
 * The control bus of the embedded database: PGlite's own LISTEN/NOTIFY, in this process only
 * (PGlite is single-process). Messages take the same path and limits as on PostgreSQL.
 */
export class PgliteControlBus implements ControlBus {
  readonly shared = false;
  private readonly client: PGlite;
  private readonly logger: Logger;
  private readonly local: LocalControlBus;
  private unlisten: (() => Promise<void>) | undefined;

  constructor(options: { client: PGlite; logger: Logger }) {
    this.client = options.client;
    this.logger = options.logger;
    this.local = new LocalControlBus({
      onListenerError: (error, topic) =>
        options.logger.error({ err: error, topic }, 'a control message listener failed'),
    });
  }

  async listen(): Promise<void> {
    this.unlisten = await this.client.listen(CONTROL_CHANNEL, (text) => this.receive(text));
  }

  async publish(topic: string, payload: unknown): Promise<void> {
    await this.client.query('select pg_notify($1, $2)', [
      CONTROL_CHANNEL,
      encodeEnvelope(topic, payload),
    ]);
  }

  subscribe(topic: string, listener: (payload: unknown) => void): () => void {
    return this.local.subscribe(topic, listener);
  }

  async close(): Promise<void> {
    const unlisten = this.unlisten;
    this.unlisten = undefined;
    await unlisten?.().catch(() => undefined);
  }

  private receive(text: string): void {
    const envelope = decodeEnvelope(text);
    if (envelope === undefined) {
      this.logger.warn({ bytes: text.length }, 'ignored a malformed control message');
      return;
    }
    // A topic of a newer version (a rolling deploy) is no fault: nobody here needs it.
    if (!this.local.deliver(envelope.topic, envelope.payload))
      this.logger.debug({ topic: envelope.topic }, 'ignored a control message of an unknown topic');
  }
}

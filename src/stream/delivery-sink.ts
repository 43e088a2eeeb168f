/** PLACEHOLDER copied from the stream brief; the stream branch owns this file. */
export interface DeliverySink {
  pushMessage(chunk: string): void;
  updateCurrent(content: string): void;
  sealCurrent(): void;
  setTyping(active: boolean): void;
  setStatus(status: string | undefined): void;
  discardPending(): void;
  flush(signal?: AbortSignal): Promise<string[]>;
}

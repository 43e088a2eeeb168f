/** A latch a script waits on ("hold until released"), for abort and stop tests. */
export interface Gate {
  readonly released: boolean;
  release(): void;
  /** Resolves when released. */
  wait(): Promise<void>;
}

export function createGate(): Gate {
  let released = false;
  let open: () => void = () => undefined;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return {
    get released() {
      return released;
    },
    release() {
      released = true;
      open();
    },
    wait: () => opened,
  };
}

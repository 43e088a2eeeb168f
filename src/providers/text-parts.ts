/**
 * Text parts of one message come from different Discord messages (a coalesced batch, merged
 * history) and from reminders. The system prompt promises the model that every speaker label
 * (`[name (id …)]: …`) starts a line, so parts are never glued together: wherever a vendor's
 * request would put two text parts side by side, they become one text joined by this.
 */
export const TEXT_PART_SEPARATOR = '\n';

/** Texts as one, each starting a line; empty texts are left out. */
export function joinTexts(texts: readonly string[]): string {
  return texts.filter((text) => text !== '').join(TEXT_PART_SEPARATOR);
}

/**
 * Joins runs of neighbouring text items into one (see TEXT_PART_SEPARATOR), keeping every other
 * item (images, tool calls, signed thoughts) where it was. `textOf` answers undefined for an
 * item that is not plain text; `withText` makes a plain text item with the joined text.
 */
export function joinNeighbouringTexts<Item>(
  items: readonly Item[],
  shape: { textOf(item: Item): string | undefined; withText(text: string): Item },
): Item[] {
  const joined: Item[] = [];
  let run: string[] = [];
  const endRun = (): void => {
    if (run.length > 0) joined.push(shape.withText(joinTexts(run)));
    run = [];
  };
  for (const item of items) {
    const text = shape.textOf(item);
    if (text === undefined) {
      endRun();
      joined.push(item);
    } else if (text !== '') {
      run.push(text);
    }
  }
  endRun();
  return joined;
}

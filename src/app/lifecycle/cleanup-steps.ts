/**
 * What shutdown undoes, pushed in start-up order and run in reverse (the composition root's
 * `closeAll`): each phase registers the closing of what it opened.
 */
export type CleanupSteps = Array<() => Promise<unknown>>;

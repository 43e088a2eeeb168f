/** The fields of a usage entry a test does not care about: nothing spent, nobody asked. */
export const NO_USAGE = {
  memberId: '',
  model: 'test-model',
  inputTokens: 0,
  cachedInputTokens: 0,
  outputTokens: 0,
  cost: 0,
  turns: 1,
} as const;

/**
 * Parses the JSON arguments a model wrote for a tool call. Models produce invalid JSON now and
 * then; that is not a stream failure: the call carries `input: undefined` and the raw text, and
 * the tool layer answers the model with a validation error it can correct.
 */
export function parseToolArguments(text: string): unknown {
  // An empty argument string is how vendors stream a call to a tool without parameters.
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

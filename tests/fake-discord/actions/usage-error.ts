/**
 * A test asked a user to do something the Discord client would not let them do (invoke an
 * unregistered command, press a button that does not exist, post without permission). It is
 * thrown to the test, never sent to the bot: it means the test itself is wrong.
 */
export class FakeDiscordUsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FakeDiscordUsageError';
  }
}

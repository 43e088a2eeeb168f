/**
 * A loopback Discord (API v10 REST + gateway) for tests, spoken to by the unmodified discord.js
 * client: point `rest.api` (the bot's DISCORD_API_URL) at `apiUrl` and log in with `token`.
 *
 *   const discord = await startFakeDiscord({ rateLimitTimeScale: 0.05 });
 *   const guild = discord.createGuild();
 *   const channel = discord.createChannel({ guildId: guild.id, name: 'general' });
 *   const alice = discord.createUser({ username: 'alice' });
 *   discord.addMember({ guildId: guild.id, userId: alice.id });
 *   discord.postMessage({ authorId: alice.id, channelId: channel.id, content: 'hi' });
 *   const reply = await discord.waits.message({ channelId: channel.id, authorId: discord.botUserId });
 *
 * Discord's rules are enforced and observable: limits (50035), permissions (50013), buckets and
 * the global limit with real headers (429), allowed_mentions (the ping log), 10008, 30046.
 */
import type { APIApplicationCommand, APIMessage } from 'discord-api-types/v10';
import { InteractionActions } from './actions/interaction-actions.ts';
import { MemberActions } from './actions/member-actions.ts';
import { FakeDiscordUsageError } from './actions/usage-error.ts';
import { EventHub, type FakeDiscordEvent } from './events/event-hub.ts';
import { PingLog, type PingRecord } from './events/ping-log.ts';
import { Waiters } from './events/waiters.ts';
import {
  resolveOptions,
  type FakeDiscordOptions,
  type ResolvedOptions,
} from './fake-discord-options.ts';
import { GatewayServer, type GatewayControl } from './gateway/gateway-server.ts';
import { FaultInjector } from './http/fault-injector.ts';
import { HttpServer } from './http/http-server.ts';
import { RequestLog, type RequestLogEntry } from './http/request-log.ts';
import { Router } from './http/router.ts';
import { RateLimiter } from './rules/rate-limiter.ts';
import { channelRoutes } from './routes/channel-routes.ts';
import { commandRoutes } from './routes/command-routes.ts';
import { identityRoutes } from './routes/identity-routes.ts';
import { interactionRoutes } from './routes/interaction-routes.ts';
import { messageRoutes } from './routes/message-routes.ts';
import { acceptUpload, uploadRoutes } from './routes/upload-routes.ts';
import { reactionRoutes } from './routes/reaction-routes.ts';
import { webhookRoutes } from './routes/webhook-routes.ts';
import { CommandRegistry } from './services/command-registry.ts';
import type { FakeDiscordContext } from './services/fake-discord-context.ts';
import { InteractionService } from './services/interaction-service.ts';
import { MessageService } from './services/message-service.ts';
import { ReactionService } from './services/reaction-service.ts';
import { TypingService, type ActiveTyping } from './services/typing-service.ts';
import { ChannelBuilder } from './services/channel-builder.ts';
import { WebhookService } from './services/webhook-service.ts';
import { WorldBuilder } from './services/world-builder.ts';
import type { WebhookRecord } from './state/records.ts';
import { SnowflakeFactory } from './state/snowflake-factory.ts';
import { World } from './state/world.ts';
import { FakeVoice } from './voice/fake-voice.ts';

export { FakeDiscordUsageError };

/** Starts the fake on 127.0.0.1 (random port) with the bot user and application created. */
export async function startFakeDiscord(options: FakeDiscordOptions = {}): Promise<FakeDiscord> {
  const discord = new FakeDiscord(resolveOptions(options));
  await discord.listen();
  return discord;
}

export class FakeDiscord {
  /** World changes: users, guilds, roles, members, emojis, stickers. */
  readonly build: WorldBuilder;
  /** Channel changes: guild channels, overwrites, threads, forum posts' threads, DMs. */
  readonly channels: ChannelBuilder;
  /** What members do: post, edit, delete, type, react, read a channel. */
  readonly members: MemberActions;
  /** Slash commands, autocomplete, buttons, selects (modals via the returned handle). */
  readonly interactions: InteractionActions;
  /** Awaitable events: next message, edit, deletion, request, typing, gateway milestone. */
  readonly waits: Waiters;
  /** Injected HTTP faults: 5xx, 429 storms, slow responses. */
  readonly faults = new FaultInjector();
  /** Gateway faults and observations: close codes, RECONNECT, INVALID_SESSION, heartbeats. */
  readonly gateway: GatewayControl;
  readonly options: ResolvedOptions;
  /**
   * Voice channels: the bot's op 4 answered with voice state and server updates, a loopback
   * voice server per guild (voice/loopback-voice-server.ts), members joining and speaking.
   */
  readonly voice: FakeVoice;

  readonly #context: FakeDiscordContext;
  readonly #gatewayServer: GatewayServer;
  readonly #http: HttpServer;
  readonly #requestLog = new RequestLog();
  readonly #typing: TypingService;
  readonly #commands: CommandRegistry;
  readonly #webhooks: WebhookService;
  #origin = '';

  constructor(options: ResolvedOptions) {
    this.options = options;
    const ids = new SnowflakeFactory(options.clock);
    const botUserId = ids.next();
    const world = new World({
      clock: options.clock,
      ids,
      bot: {
        userId: botUserId,
        applicationId: botUserId,
        token: options.token,
        privilegedIntents: options.privilegedIntents,
      },
    });
    world.users.set(botUserId, {
      id: botUserId,
      username: options.botUsername,
      globalName: null,
      bot: true,
      avatar: null,
      acceptsDirectMessages: true,
    });
    const hub = new EventHub({ defaultTimeoutMs: options.waitTimeoutMs });
    this.#gatewayServer = new GatewayServer({
      world,
      hub,
      heartbeatIntervalMs: options.heartbeatIntervalMs,
      origin: () => this.#origin.replace(/^http/, 'ws'),
      voiceStateUpdate: (sessionId, data) => this.voice.botVoiceStateUpdate(sessionId, data),
    });
    this.gateway = this.#gatewayServer;
    const payloads = { world, origin: '' };
    this.#context = {
      world,
      hub,
      gateway: this.#gatewayServer,
      pingLog: new PingLog(),
      rateLimiter: new RateLimiter({
        clock: options.clock,
        timeScale: options.rateLimitTimeScale,
        globalPerSecond: options.globalRequestsPerSecond,
        globalTimeScale: options.globalLimitTimeScale,
      }),
      options,
      payloads,
    };
    const context = this.#context;
    this.voice = new FakeVoice(context, options.voice);
    const messages = new MessageService(context);
    const reactions = new ReactionService(context);
    this.#typing = new TypingService(context);
    this.#commands = new CommandRegistry(context);
    const interactions = new InteractionService(context, messages);
    this.build = new WorldBuilder(context);
    this.channels = new ChannelBuilder(context);
    this.#webhooks = new WebhookService(context, { messages, channels: this.channels });
    this.members = new MemberActions(context, { messages, typing: this.#typing, reactions });
    this.interactions = new InteractionActions(context, { interactions, commands: this.#commands });
    this.waits = new Waiters(hub, payloads);

    const identifies = () => this.#gatewayServer.identifies().length;
    const router = new Router();
    router.add(
      ...identityRoutes(context, { channels: this.channels, identifies }),
      ...messageRoutes(context, { messages, typing: this.#typing }),
      ...uploadRoutes(context),
      ...reactionRoutes(context, reactions),
      ...channelRoutes(context, { messages, channels: this.channels }),
      ...commandRoutes(context, this.#commands),
      ...interactionRoutes(context, interactions),
      ...webhookRoutes(context, this.#webhooks),
    );
    this.#http = new HttpServer({
      context,
      router,
      requestLog: this.#requestLog,
      faults: this.faults,
      upload: (path, data) => acceptUpload(context, path, data),
      attachment: (path) => {
        const [, , channelId, attachmentId] = path.split('/');
        const upload = world.uploads.get(attachmentId ?? '');
        if (upload === undefined || upload.channelId !== channelId) return undefined;
        return { data: upload.attachment.data, contentType: upload.attachment.contentType };
      },
    });
  }

  /** @internal started by startFakeDiscord. */
  async listen(): Promise<void> {
    const port = await this.#http.listen();
    this.#origin = `http://127.0.0.1:${port}`;
    this.#context.payloads.origin = this.#origin;
  }

  /** REST base for discord.js `rest.api` / the bot's DISCORD_API_URL (discord.js appends /v10). */
  get apiUrl(): string {
    return `${this.#origin}/api`;
  }

  get origin(): string {
    return this.#origin;
  }

  get token(): string {
    return this.options.token;
  }

  get botUserId(): string {
    return this.#context.world.bot.userId;
  }

  get applicationId(): string {
    return this.#context.world.bot.applicationId;
  }

  // Shortcuts for the calls nearly every test makes.
  createUser: WorldBuilder['createUser'] = (options) => this.build.createUser(options);
  createGuild: WorldBuilder['createGuild'] = (options) => this.build.createGuild(options);
  createRole: WorldBuilder['createRole'] = (options) => this.build.createRole(options);
  addMember: WorldBuilder['addMember'] = (options) => this.build.addMember(options);
  createChannel: ChannelBuilder['createChannel'] = (options) =>
    this.channels.createChannel(options);
  createThread: ChannelBuilder['createThread'] = (options) => this.channels.createThread(options);
  setOverwrite: ChannelBuilder['setOverwrite'] = (options) => this.channels.setOverwrite(options);
  openDirectMessage: ChannelBuilder['openDirectMessage'] = (userId) =>
    this.channels.openDirectMessage(userId);
  postMessage: MemberActions['postMessage'] = (input) => this.members.postMessage(input);
  invokeSlashCommand: InteractionActions['invokeSlashCommand'] = (input) =>
    this.interactions.invokeSlashCommand(input);
  pressButton: InteractionActions['pressButton'] = (input) => this.interactions.pressButton(input);
  invokeMessageCommand: InteractionActions['invokeMessageCommand'] = (input) =>
    this.interactions.invokeMessageCommand(input);

  /** A forum post: a public thread in the forum whose first message is the author's. */
  createForumPost(options: {
    forumId: string;
    authorId: string;
    name: string;
    content: string;
    appliedTags?: string[];
  }): {
    threadId: string;
    message: APIMessage;
  } {
    const thread = this.channels.createThread({
      parentId: options.forumId,
      name: options.name,
      ownerId: options.authorId,
      ...(options.appliedTags === undefined ? {} : { appliedTags: options.appliedTags }),
    });
    const message = this.members.postMessage({
      authorId: options.authorId,
      channelId: thread.id,
      content: options.content,
    });
    return { threadId: thread.id, message };
  }

  /** The channel as `as` sees it (default: the bot), oldest first, after edits and deletes. */
  readChannel(channelId: string, options: { as?: string } = {}): APIMessage[] {
    return this.members.readChannel(channelId, options.as ?? this.botUserId);
  }

  /** One message as `viewerId` sees it (undefined once deleted). */
  message(messageId: string, viewerId = this.botUserId): APIMessage | undefined {
    const message = this.#context.world.messages.get(messageId);
    return message === undefined || message.deletedAt !== null
      ? undefined
      : this.members.view(message, viewerId);
  }

  /** Makes a message `ageMs` old (for the 30046 rule on edits of messages older than an hour). */
  backdateMessage(messageId: string, ageMs: number): void {
    const message = this.#context.world.messages.get(messageId);
    if (message === undefined) throw new FakeDiscordUsageError(`no message ${messageId}`);
    message.createdAt = this.#context.world.clock.now() - ageMs;
  }

  /** A channel's webhooks, oldest first (what `GET /channels/:id/webhooks` lists). */
  webhooks(channelId: string): WebhookRecord[] {
    return this.#webhooks.list(channelId);
  }

  /** A member with MANAGE_WEBHOOKS (the guild owner by default) deletes a webhook. */
  deleteWebhook(webhookId: string, actorId?: string): void {
    const webhook = this.#context.world.webhook(webhookId);
    const ownerId = this.#context.world.guild(webhook.guildId).ownerId;
    this.#webhooks.delete({ webhookId, actorId: actorId ?? ownerId });
  }

  /** A member creates a webhook (as a server's own integrations would). */
  createWebhook(options: { channelId: string; name: string; creatorId: string }): WebhookRecord {
    return this.#webhooks.create(options);
  }

  /** Every request so far (optionally filtered by method, route template or path, status). */
  requests(filter?: {
    method?: string;
    route?: string | RegExp;
    status?: number;
  }): RequestLogEntry[] {
    return this.#requestLog.entries(filter);
  }

  /** Requests the bot's global limit refused (each a 429 with `x-ratelimit-global: true`). */
  globalRateLimitHits(): number {
    return this.#context.rateLimiter.globalRefusals;
  }

  /** Every create or edit that would have notified someone. */
  pings(): readonly PingRecord[] {
    return this.#context.pingLog.entries();
  }

  /** Typing indicators showing in a channel now. */
  typingIn(channelId: string): ActiveTyping[] {
    return this.#typing.active(channelId);
  }

  /** Registered application commands (global when `guildId` is omitted). */
  commands(guildId?: string): APIApplicationCommand[] {
    return this.#commands.list(guildId ?? null);
  }

  /** Listens to every event (returns the unsubscribe function). */
  subscribe(listener: (event: FakeDiscordEvent) => void): () => void {
    return this.#context.hub.subscribe(listener);
  }

  /** Forgets logs and rate-limit windows (world state is kept). */
  resetObservations(): void {
    this.#requestLog.clear();
    this.#context.pingLog.clear();
    this.#context.rateLimiter.reset();
    this.faults.clear();
  }

  async close(): Promise<void> {
    await this.voice.close();
    await this.#gatewayServer.close();
    await this.#http.close();
  }
}

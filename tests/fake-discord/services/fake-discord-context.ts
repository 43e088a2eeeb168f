import type { EventHub } from '../events/event-hub.ts';
import type { PingLog } from '../events/ping-log.ts';
import type { ResolvedOptions } from '../fake-discord-options.ts';
import type { GatewayServer } from '../gateway/gateway-server.ts';
import type { PayloadContext } from '../payloads/message-payloads.ts';
import type { RateLimiter } from '../rules/rate-limiter.ts';
import type { World } from '../state/world.ts';

/** The shared parts every service and route of the fake Discord works with. */
export interface FakeDiscordContext {
  world: World;
  hub: EventHub;
  gateway: GatewayServer;
  pingLog: PingLog;
  rateLimiter: RateLimiter;
  options: ResolvedOptions;
  payloads: PayloadContext;
}

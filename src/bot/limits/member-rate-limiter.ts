import { LruMap } from '../../core/lru-map.ts';
import type { MessageClaim } from '../../db/claim-repository.ts';
import type { MemberTurnRequest, MemberTurnVerdict } from '../../db/member-turn-repository.ts';

export const MEMBER_RATE_WINDOW_MS = 60_000;
/** Members whose refusal is remembered here at most. */
const REFUSALS_KEPT = 10_000;

export interface MemberRateLimit {
  /** The message id (or a Retry press's key): one turn, however many processes hear it. */
  key: string;
  scopeId: string;
  memberId: string;
  perMinute: number;
  /** This host's time: only to remember a refusal here (the window is the database's clock). */
  now: number;
  /**
   * The message's claim, made with the count when the database is asked and the turn allowed
   * (`claimed` in the verdict). Without a database round trip (no limit, a refusal remembered)
   * the verdict has no `claimed`: the caller claims.
   */
  claim?: MessageClaim | undefined;
}

/**
 * Turns per member per minute, per scope (a sliding window): protects the server owner's key
 * from one member spamming the bot. Counted in the database (`takeMemberTurn`), so the limit
 * holds across every process and a message all of them hear counts once, on the database's
 * clock (hosts whose clocks disagree still share one window). A refusal is
 * remembered here until it ends — the window can only fill meanwhile — so a member who keeps
 * going costs no database round trip until then.
 */
export class MemberRateLimiter {
  private readonly refusedUntil = new LruMap<string, number>(REFUSALS_KEPT);
  private readonly takeTurn: (request: MemberTurnRequest) => Promise<MemberTurnVerdict>;

  /** `takeTurn`: `takeMemberTurn` on the database. */
  constructor(takeTurn: (request: MemberTurnRequest) => Promise<MemberTurnVerdict>) {
    this.takeTurn = takeTurn;
  }

  /** Whether a refusal of the member is remembered here and still runs at `now`. */
  refusing(scopeId: string, memberId: string, now: number): boolean {
    const until = this.refusedUntil.get(`${scopeId}:${memberId}`);
    return until !== undefined && until > now;
  }

  async take(limit: MemberRateLimit): Promise<MemberTurnVerdict> {
    if (limit.perMinute <= 0) return { allowed: true };
    const member = `${limit.scopeId}:${limit.memberId}`;
    const until = this.refusedUntil.get(member);
    if (until !== undefined && until > limit.now) {
      return { allowed: false, retryAfterMs: until - limit.now };
    }
    const verdict = await this.takeTurn({
      key: limit.key,
      scopeId: limit.scopeId,
      memberId: limit.memberId,
      perWindow: limit.perMinute,
      windowMs: MEMBER_RATE_WINDOW_MS,
      claim: limit.claim,
    });
    if (verdict.allowed) this.refusedUntil.delete(member);
    else this.refusedUntil.set(member, limit.now + verdict.retryAfterMs);
    return verdict;
  }
}

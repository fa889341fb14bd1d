/**
 * The background sender of an outbox (e-mail, webhooks): a run every 2 s, and one soon after `kick()` (kicks within
 * 50 ms make one run); runs never overlap; a run that used its whole batch goes again at once (at most 10 times in a
 * row). server.ts and Next's bundled route handlers each load their own copy of the modules that use it, so the
 * state lives on globalThis under the outbox's name and every copy's `kick()` reaches the loop server.ts started.
 */
const POLL_MS = 2_000;
const KICK_DEBOUNCE_MS = 50;
const MAX_FOLLOW_UPS = 10;

interface LoopState {
  timer?: NodeJS.Timeout;
  kickTimer?: NodeJS.Timeout;
  /** The run in progress. */
  running?: Promise<void>;
  /** A kick arrived during a run: run again when it ends. */
  again: boolean;
  /** The run function of the module copy that started the loop (server.ts's), used by every copy's kick. */
  run?: () => Promise<void>;
  lastError?: { message: string; at: number };
}

export interface OutboxLoop {
  /** Starts the loop (idempotent; it never keeps the process alive) and returns the function that stops it. */
  start(): () => void;
  /** Asks for a run now rather than on the next tick; does nothing where no loop was started (tests, scripts). */
  kick(): void;
}

export function outboxLoop(opts: {
  /** Names the shared state: "outbox" (e-mail), "webhooks". */
  key: string;
  /** For the log: "e-mail outbox". */
  label: string;
  batch: number;
  deliver: (o: { limit: number }) => Promise<{ sent: number; failed: number }>;
}): OutboxLoop {
  const KEY = Symbol.for(`indie-license-market.${opts.key}`);
  const g = globalThis as unknown as Record<symbol, LoopState | undefined>;
  const state = (): LoopState => (g[KEY] ??= { again: false });

  /** Logs a failed run, but the same error (a database that is down) at most once a minute, not every 2 s. */
  const logError = (s: LoopState, error: unknown) => {
    const message = error instanceof Error ? error.message : String(error);
    const now = Date.now();
    if (s.lastError?.message === message && now - s.lastError.at < 60_000) return;
    s.lastError = { message, at: now };
    console.error(`${opts.label}: delivery run failed:`, error);
  };

  const run = (): Promise<void> => {
    const s = state();
    if (s.running) {
      s.again = true;
      return s.running;
    }
    s.running = (async () => {
      try {
        let followUps = 0;
        do {
          s.again = false;
          const { sent, failed } = await opts.deliver({ limit: opts.batch });
          if (sent + failed >= opts.batch && followUps++ < MAX_FOLLOW_UPS) s.again = true;
        } while (s.again);
      } catch (error) {
        logError(s, error);
      } finally {
        s.running = undefined;
      }
    })();
    return s.running;
  };

  const stop = () => {
    const s = state();
    if (s.timer) clearInterval(s.timer);
    if (s.kickTimer) clearTimeout(s.kickTimer);
    s.timer = undefined;
    s.kickTimer = undefined;
    s.run = undefined;
  };

  return {
    start() {
      const s = state();
      if (!s.timer) {
        s.run = run;
        s.timer = setInterval(() => void run(), POLL_MS);
        s.timer.unref();
        void run(); // whatever was queued before a restart goes out now
      }
      return stop;
    },
    kick() {
      const s = state();
      if (!s.run || s.kickTimer) return;
      s.kickTimer = setTimeout(() => {
        s.kickTimer = undefined;
        void s.run?.();
      }, KICK_DEBOUNCE_MS);
      s.kickTimer.unref();
    },
  };
}

// When a file body that Bun sends itself (a local blob: sendfile for 1 MiB and more) has gone to
// its last byte, or was cut off by the client (README, Health, logs and metrics). Bun 1.4.5 calls
// nothing when such a transfer ends: the request's `signal` aborts when the client goes away
// before the last byte, and nothing happens at the end of a completed one, but the server forgets
// the request then (its `requestIP` answers null: library-internals.ts). One timer looks at the
// downloads in flight, each again after a twentieth of its time so far (10 ms to 250 ms: a long
// download's duration is off by at most 5 %, and a thousand of them cost a few thousand looks a
// second); an aborted one is seen at once. Bun
// forgets a request cut off by its client before it aborts the request's signal, so a request
// found forgotten is decided a tick later: aborted by then, it was cut off.
import { requestEnded } from "./library-internals";

/** What of Bun's server is asked: whether it still holds a request's connection. */
export interface DeliveryServer {
  requestIP(request: Request): unknown;
}

/**
 * Told once: true when the last byte went, false when the client went away before it; `endedAt`
 * is when that was seen (performance.now()).
 */
export type DeliveryEnd = (complete: boolean, endedAt: number) => void;

/** The timer's tick, and the soonest a download is looked at again. */
export const DELIVERY_TICK_MS = 10;
/** The longest a download in flight goes unlooked at. */
const MAX_LOOK_INTERVAL_MS = 250;

interface Delivery {
  server: DeliveryServer;
  request: Request;
  startedAt: number;
  /** When it is looked at next. */
  nextLookAt: number;
  /** When the server was first seen done with the request; decided at the tick after. */
  forgottenAt?: number;
  end(complete: boolean, endedAt: number): void;
}

const inFlight = new Set<Delivery>();
let timer: ReturnType<typeof setInterval> | undefined;

function tick(): void {
  const now = performance.now();
  for (const delivery of inFlight) {
    if (delivery.forgottenAt !== undefined)
      delivery.end(!delivery.request.signal.aborted, delivery.forgottenAt);
    else if (now < delivery.nextLookAt) continue;
    else if (requestEnded(delivery.server, delivery.request)) delivery.forgottenAt = now;
    else {
      const interval = (now - delivery.startedAt) / 20;
      delivery.nextLookAt = now + Math.min(MAX_LOOK_INTERVAL_MS, Math.max(DELIVERY_TICK_MS, interval));
    }
  }
  if (inFlight.size === 0 && timer !== undefined) {
    clearInterval(timer);
    timer = undefined;
  }
}

/** Tells `onEnd` when `request`'s file body was sent to its end or cut off. */
export function watchDelivery(server: DeliveryServer, request: Request, onEnd: DeliveryEnd): void {
  let ended = false;
  const startedAt = performance.now();
  const delivery: Delivery = {
    server,
    request,
    startedAt,
    nextLookAt: startedAt,
    end(complete, endedAt) {
      if (ended) return;
      ended = true;
      inFlight.delete(delivery);
      request.signal.removeEventListener("abort", aborted);
      onEnd(complete, endedAt);
    },
  };
  const aborted = () => delivery.end(false, delivery.forgottenAt ?? performance.now());
  if (request.signal.aborted) {
    delivery.end(false, performance.now());
    return;
  }
  request.signal.addEventListener("abort", aborted);
  inFlight.add(delivery);
  if (timer === undefined) {
    timer = setInterval(tick, DELIVERY_TICK_MS);
    // A download in flight does not keep a stopping process alive.
    timer.unref();
  }
}

/** Downloads not yet ended (tests, and the bench's look at a busy server). */
export function deliveriesInFlight(): number {
  return inFlight.size;
}

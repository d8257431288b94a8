// The socket's reconnection pauses (web/static/js/socket.js): growing, jittered, capped, and never shorter than a
// refusal asks. The socket itself, dropped and refused by a real server, is tests/web/test_web_backoff.py's.
import assert from "node:assert/strict";
import { test } from "node:test";

import { reconnectDelay, retryAfterOf } from "../../src/forsale/web/static/js/socket.js";

const low = () => 0;
const high = () => 0.999999;

test("reconnection pauses double from 0.5 s up to 10 s, between half and all of each", () => {
  const attempts = [0, 1, 2, 3, 4, 5, 6, 50];
  assert.deepEqual(attempts.map((a) => reconnectDelay(a, 0, low)), [250, 500, 1000, 2000, 4000, 5000, 5000, 5000]);
  assert.deepEqual(attempts.map((a) => Math.round(reconnectDelay(a, 0, high))), [500, 1000, 2000, 4000, 8000, 10000, 10000, 10000]);
});

test("a refusal's retry_after is the least pause, plus up to half of it again", () => {
  assert.equal(reconnectDelay(0, 10, low), 10_000);
  const most = reconnectDelay(0, 10, high);
  assert.ok(most > 14_999 && most <= 15_000, String(most));
  assert.equal(reconnectDelay(9, 10, low), 10_000);
});

test("retry_after is read from an error's params or from a close reason", () => {
  assert.equal(retryAfterOf({ params: { retry_after: 7 } }), 7);
  assert.equal(retryAfterOf("too_many_connections; retry_after=10"), 10);
  assert.equal(retryAfterOf({ code: "illegal" }), 0);
  assert.equal(retryAfterOf(""), 0);
});

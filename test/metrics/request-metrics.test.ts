// http_requests_total is read from http_request_duration_seconds at each scrape (registry.ts):
// every series of the one is in the other with the same count, and a scrape counts nothing twice.
// (test/ops/walkthrough.test.ts runs promtool check metrics on a real server's exposition.)
import { describe, expect, test } from "bun:test";
import { observeRequest, registry } from "../../src/metrics/registry";
import { samples } from "../helpers/prometheus";

/** A metric's samples by their label text, from the exposition Prometheus scrapes. */
async function scraped(name: string): Promise<Map<string, number>> {
  return samples(await registry.metrics(), name);
}

describe("the request metrics", () => {
  test("count each request once, in both metrics, however often they are scraped", async () => {
    const route = `/metrics-test/${crypto.randomUUID()}`;
    const seconds = [0.0004, 0.003, 0.2, 7, 200];
    for (const s of seconds) observeRequest("GET", route, 200, s);
    observeRequest("POST", route, 409, 0.01);
    const get = `{method="GET",route="${route}",status="200"}`;
    const post = `{method="POST",route="${route}",status="409"}`;
    for (let scrape = 0; scrape < 3; scrape++) {
      const requests = await scraped("http_requests_total");
      const counts = await scraped("http_request_duration_seconds_count");
      expect(requests.get(get)).toBe(seconds.length);
      expect(requests.get(post)).toBe(1);
      // Every series of the counter is the histogram's, with its count.
      for (const [labels, count] of requests) expect(counts.get(labels)).toBe(count);
      expect(requests.size).toBe(counts.size);
    }
    observeRequest("GET", route, 200, 0.5);
    expect((await scraped("http_requests_total")).get(get)).toBe(seconds.length + 1);
    const buckets = await scraped("http_request_duration_seconds_bucket");
    expect(buckets.get(`{le="0.001",method="GET",route="${route}",status="200"}`)).toBe(1);
    expect(buckets.get(`{le="+Inf",method="GET",route="${route}",status="200"}`)).toBe(seconds.length + 1);
  });
});

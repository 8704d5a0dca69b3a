/**
 * The counter's MCP App in a real browser (headless Chromium, test-support/browser.ts): the demo host
 * page renders the view of `show` with the official AppBridge, in a sandbox proxy on another origin
 * under the view's Content-Security-Policy; a click in the view calls `increment` through the host
 * and our server, and the view shows the new count. Once per era of the host's client.
 */
import 'reflect-metadata';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, ConsoleMessage, FrameLocator, Page, Response } from 'playwright-core';
import { cspFor, modelTools, readAppView } from '@hermes-mcp/client';
import type { RequestTrace } from '@hermes-mcp/protocol';
import { describeInChromium, launchChromium } from '../../../test-support/browser';
import { VIEW_URI } from '../src/counter.server';
import { Demo, startDemo } from '../src/demo';
import { webAssets } from '../src/web';

/** Screenshots for a human to look at; git-ignored, left in the clone by CI. */
const ARTIFACTS = join(__dirname, '../../../test-artifacts/apps');
/** A bound on each wait in the browser, far above what it takes. */
const WAIT = { timeout: 20_000 };

/**
 * The server's side of every tools/call while started: the start events of the hermes-mcp:request
 * TracingChannel, in this process (the demo's server runs here).
 */
function recordToolCalls(): RequestTrace[] & { start(): void; stop(): void } {
  const name = 'tracing:hermes-mcp:request:start';
  const calls: RequestTrace[] = [];
  const record = (trace: unknown) => void ((trace as RequestTrace).method === 'tools/call' && calls.push(trace as RequestTrace));
  return Object.assign(calls, { start: () => subscribe(name, record), stop: () => unsubscribe(name, record) });
}

describeInChromium('the counter app in Chromium', () => {
  let browser: Browser;

  beforeAll(async () => {
    // Chromium starts while esbuild bundles the view and the host pages.
    [browser] = await Promise.all([launchChromium(), webAssets()]);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
  });

  describe.each([
    ['2025-11-25', 'legacy'],
    ['2026-07-28', 'modern'],
  ] as const)('a host whose client speaks %s', (protocolVersion, era) => {
    const toolCalls = recordToolCalls();
    const consoleLines: ConsoleMessage[] = [];
    let sandboxPage: Promise<Response>;
    let demo: Demo;
    let page: Page;
    let view: FrameLocator;

    beforeAll(async () => {
      toolCalls.start();
      demo = await startDemo({ protocolVersion });
      page = await browser.newPage();
      page.on('console', (line) => consoleLines.push(line));
      sandboxPage = page.waitForResponse((response) => response.url().startsWith(demo.sandboxUrl), WAIT);
      await page.goto(demo.hostUrl);
      view = page.frameLocator('iframe#app').frameLocator('iframe');
    }, 60_000);
    afterAll(async () => {
      toolCalls.stop();
      await page?.close();
      await demo?.close();
    });

    const calledTools = () => toolCalls.map((trace) => [trace.params.name, trace.era, trace.protocolVersion]);

    it('renders the view with the result of the tool that opened it', async () => {
      // Count: 0 is the `show` result, sent to the view by AppBridge once the view initialized.
      await view.locator('#count', { hasText: 'Count: 0' }).waitFor(WAIT);
      expect(calledTools()).toEqual([['show', era, protocolVersion]]);
      // Nothing the view does by itself breaks its policy (the status line reports violations).
      expect(await view.locator('#status').textContent()).toBe('');
    });

    it("keeps the view's own tool out of the agent's list", async () => {
      expect(modelTools(await demo.client.listAllTools()).map((tool) => tool.name)).toEqual(['show', 'show_secret']);
      await page.locator('#agent-tools', { hasText: 'The agent sees: show, show_secret' }).waitFor(WAIT);
    });

    it('a click in the view calls the app-only tool through the host and our server, and the view shows its result', async () => {
      await view.locator('button#increment').click(WAIT);
      await view.locator('#count', { hasText: 'Count: 1' }).waitFor(WAIT);
      expect(demo.counter.value).toBe(1);
      expect(calledTools()).toEqual([
        ['show', era, protocolVersion],
        ['increment', era, protocolVersion],
      ]);
      expect(toolCalls[1].params.arguments).toEqual({ by: 1 });
    });

    it('the host refuses a model-only tool to the view: the server never sees the call', async () => {
      await view.locator('button#model-only').click(WAIT);
      await view.locator('#status', { hasText: 'Refused' }).waitFor(WAIT);
      expect(await view.locator('#status').textContent()).toMatch(/^Refused \(-32602\): .*"show_secret" is not callable from an app/);
      expect(calledTools().map(([name]) => name)).toEqual(['show', 'increment']);
    });

    it("the view runs under its resource's Content-Security-Policy, sent by the sandbox proxy", async () => {
      const declared = (await readAppView(demo.client, VIEW_URI)).csp;
      expect(declared).toEqual({ connectDomains: [], resourceDomains: [] });
      const policy = (await sandboxPage).headers()['content-security-policy'];
      expect(policy).toBe(cspFor(declared));
      expect(policy).toContain("connect-src 'self';");
      await view.locator('button#fetch').click(WAIT);
      await view.locator('#status', { hasText: 'Blocked by CSP (connect-src): https://example.com/' }).waitFor(WAIT);
    });

    it('leaves a screenshot of the page in test-artifacts/', async () => {
      const path = join(ARTIFACTS, `counter-${protocolVersion}.png`);
      await page.screenshot({ path, fullPage: true });
      const png = readFileSync(path);
      expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
      expect(png.length).toBeGreaterThan(1024);
      expect(consoleLines.filter((line) => line.type() === 'error' && !/Content Security Policy/.test(line.text()))).toEqual([]);
    });
  });
  describe('the official host stack: the SDK v2 Client in the page, AppBridge forwarding to it', () => {
    const toolCalls = recordToolCalls();
    let demo: Demo;
    let page: Page;

    beforeAll(async () => {
      toolCalls.start();
      demo = await startDemo();
      page = await browser.newPage();
      await page.goto(demo.sdkHostUrl);
    }, 60_000);
    afterAll(async () => {
      toolCalls.stop();
      await page?.close();
      await demo?.close();
    });

    it('renders the view of our server, and a click in it calls our server', async () => {
      const view = page.frameLocator('iframe#app').frameLocator('iframe');
      await view.locator('#count', { hasText: 'Count: 0' }).waitFor(WAIT);
      expect(await view.locator('#status').textContent()).toBe('');
      await view.locator('button#increment').click(WAIT);
      await view.locator('#count', { hasText: 'Count: 1' }).waitFor(WAIT);
      expect(demo.counter.value).toBe(1);
      // The SDK v2 client speaks 2025-11-25 (a session), its newest revision.
      expect(toolCalls.map((trace) => [trace.params.name, trace.era, trace.protocolVersion])).toEqual([
        ['show', 'legacy', '2025-11-25'],
        ['increment', 'legacy', '2025-11-25'],
      ]);
      await page.screenshot({ path: join(ARTIFACTS, 'counter-sdk-host.png'), fullPage: true });
    });
  });
});

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { BrowserContext } from 'playwright-core';
import { useStack } from '../support/use-stack.js';
import { launchChromium } from './chromium.js';

let browser: { context: BrowserContext; close: () => Promise<void> };
// Declared before the stack's: the browser lets go of its connections before the API closes (hooks run in the order declared).
afterAll(async () => browser?.close());
const stack = useStack({}, { worker: false });

beforeAll(async () => {
  browser = await launchChromium();
});

describe('/docs in a browser', () => {
  it('renders every operation of the document with Redoc, under its CSP, loading nothing from elsewhere', async () => {
    const page = await browser.context.newPage();
    const problems: string[] = [];
    const elsewhere: string[] = [];
    page.on('console', (message) => {
      // Redoc's sidebar credit links an image on Redocly's CDN; the policy blocks it (no request is made)
      // and Redoc then leaves the image out. Any other violation or error fails the test.
      if (message.text().includes("'https://cdn.redoc.ly/redoc/logo-mini.svg'")) return;
      if (message.type() === 'error' || /Content Security Policy/i.test(message.text())) problems.push(message.text());
    });
    page.on('response', (response) => {
      if (response.status() >= 400) problems.push(`${response.status()} ${response.url()}`);
    });
    page.on('pageerror', (error) => problems.push(error.message));
    // Finished requests: the policy makes a blocked one fail before anything is sent.
    page.on('requestfinished', (request) => {
      if (!request.url().startsWith(stack.origin) && !/^(data|blob):/.test(request.url())) elsewhere.push(request.url());
    });

    await page.goto(`${stack.origin}/docs`);
    await page.locator('h2', { hasText: 'Create a checkout session' }).waitFor({ timeout: 30_000 });
    const body = await page.locator('body').innerText();
    for (const summary of ['Refund a completed session', 'Withdraw available funds', 'Register a webhook endpoint', 'Read the balance']) {
      expect(body).toContain(summary);
    }
    if (process.env.DOCS_SCREENSHOT) await page.screenshot({ path: process.env.DOCS_SCREENSHOT });
    expect(problems).toEqual([]);
    expect(elsewhere).toEqual([]);
    await page.close();
  });
});

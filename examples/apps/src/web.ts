import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { build } from 'esbuild';

/** The example's folder (this file runs from src/ under ts-jest and from dist/ once built). */
const ROOT = join(__dirname, '..');

/** The browser side of the example, bundled: the view (one HTML file) and the demo host's pages. */
export interface WebAssets {
  /** The view's HTML, its script inlined: what the server serves as `ui://counter/view.html`. */
  viewHtml: string;
  hostHtml: string;
  hostJs: string;
  sandboxHtml: string;
  sandboxJs: string;
  /** The page of the official host stack (the SDK v2 Client with AppBridge forwarding to it). */
  sdkHostHtml: string;
  sdkHostJs: string;
  /** The host pages' stylesheet. */
  hostCss: string;
}

let assets: Promise<WebAssets> | undefined;

/**
 * Bundles view/ and host/ with esbuild, once per process (a fraction of a second). An app of your
 * own would bundle at build time; the example does it at start so `npm start` needs no other step.
 */
export function webAssets(): Promise<WebAssets> {
  assets ??= bundleAll();
  return assets;
}

/** The view's HTML, as {@link webAssets} bundles it. */
export async function viewHtml(): Promise<string> {
  return (await webAssets()).viewHtml;
}

async function bundleAll(): Promise<WebAssets> {
  const [viewJs, hostJs, sandboxJs, sdkHostJs, template, hostHtml, sandboxHtml, sdkHostHtml, hostCss] = await Promise.all([
    bundle('view/counter-view.ts', 'esm'),
    bundle('host/host.ts', 'iife'),
    bundle('host/sandbox.ts', 'iife'),
    bundle('host/sdk-host.ts', 'iife'),
    readFile(join(ROOT, 'view/view.html'), 'utf8'),
    readFile(join(ROOT, 'host/index.html'), 'utf8'),
    readFile(join(ROOT, 'host/sandbox.html'), 'utf8'),
    readFile(join(ROOT, 'host/sdk.html'), 'utf8'),
    readFile(join(ROOT, 'host/host.css'), 'utf8'),
  ]);
  // The view is one document with its script inline: hosts render the resource's text as it is.
  const script = `<script type="module">${viewJs.replace(/<\/script/gi, '<\\/script')}</script>`;
  const marker = '<!-- view.ts, bundled by src/web.ts, goes here -->';
  if (!template.includes(marker)) throw new Error(`view/view.html lacks the marker ${marker}`);
  return { viewHtml: template.replace(marker, () => script), hostHtml, hostJs, sandboxHtml, sandboxJs, sdkHostHtml, sdkHostJs, hostCss };
}

async function bundle(entry: string, format: 'esm' | 'iife'): Promise<string> {
  const result = await build({
    entryPoints: [join(ROOT, entry)],
    bundle: true,
    write: false,
    format,
    platform: 'browser',
    target: 'es2022',
    minify: true,
    logLevel: 'silent',
  });
  return result.outputFiles[0].text;
}

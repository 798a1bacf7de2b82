// Drives a generated site in headless Chromium (the system's /usr/bin/chromium, through
// playwright-core): every page loads without console errors, its charts load with a
// nonzero size, the scenario filters change what is shown, and data that looks like
// HTML (<script>alert(1)</script>) is shown as text without any dialog firing.
//
// Then every page again at phone width (390 px): nothing wider than the screen except
// inside the tables' own scroll boxes, and no two pieces of text drawn over each other;
// the Go-against-Rust bar charts are their stacked phone twins (-narrow.svg), drawn at
// 0.8 of their size or more (the wide ones would shrink their type to 0.4).
//
//   node test.mjs SITE_DIR [--xss TEXT] [--screenshot FILE] [--shots DIR] [--timing-only] [--page NAME]
//
// --shots DIR: a full-page screenshot of every page at 1400 px and at 390 px, to look at.
//
// Prints one JSON summary line on stdout; exit 0 when every check passed, 1 otherwise
// (each failure on its own stderr line).
import { chromium } from "playwright-core";
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const args = process.argv.slice(2);
const opt = (name) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : undefined; };
const siteDir = path.resolve(args[0] || "");
const xss = opt("--xss");
const screenshot = opt("--screenshot");
const shots = opt("--shots");
const timingOnly = args.includes("--timing-only");
const exe = process.env.CHROMIUM || "/usr/bin/chromium";

const failures = [];
const fail = (msg) => { failures.push(msg); console.error("FAIL " + msg); };
if (!fs.existsSync(path.join(siteDir, "index.html"))) {
  console.error(`no site at ${siteDir} (index.html missing)`);
  process.exit(2);
}

const browser = await chromium.launch({
  executablePath: exe,
  headless: true,
  args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
         "--disable-sync", "--no-first-run", "--allow-file-access-from-files"],
});
const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
const summary = { pages: {}, dialogs: 0 };

async function open(name) {
  const page = await context.newPage();
  const errors = [];
  page.on("console", (m) => { if (m.type() === "error") errors.push(`console: ${m.text()}`); });
  page.on("pageerror", (e) => errors.push(`exception: ${e.message}`));
  page.on("requestfailed", (r) => errors.push(`request failed: ${r.url()} (${r.failure()?.errorText})`));
  page.on("dialog", async (d) => { summary.dialogs++; errors.push(`dialog fired: ${d.type()} ${d.message()}`); await d.dismiss(); });
  const url = pathToFileURL(path.join(siteDir, name)).href;
  const t0 = Date.now();
  await page.goto(url, { waitUntil: "load" });
  const wall = Date.now() - t0;
  const nav = await page.evaluate(() => {
    const e = performance.getEntriesByType("navigation")[0];
    return e ? { domContentLoaded: e.domContentLoadedEventEnd, load: e.loadEventEnd } : null;
  });
  return { page, errors, wall, nav };
}

async function loadAllImages(page) {
  // lazy images: make them eager, then wait for every one to finish
  return await page.evaluate(async () => {
    const imgs = Array.from(document.querySelectorAll("img")).filter((i) => !i.closest("[hidden]"));
    imgs.forEach((i) => { i.loading = "eager"; });
    await Promise.all(imgs.map((i) => i.complete ? null : new Promise((r) => { i.onload = r; i.onerror = r; setTimeout(r, 10000); })));
    return imgs.map((i) => ({ src: i.getAttribute("src"), w: i.naturalWidth, h: i.naturalHeight }));
  });
}

async function visibleRows(page) {
  return await page.evaluate(() => Array.from(document.querySelectorAll("#latest tbody tr[data-os]"))
    .filter((r) => !r.hidden).map((r) => ({ os: r.dataset.os, variant: r.dataset.variant, toolchain: r.dataset.toolchain })));
}

const names = fs.readdirSync(siteDir).filter((n) => n.endsWith(".html")).sort();
for (const need of ["index.html", "regressions.html", "about.html"]) {
  if (!names.includes(need)) fail(`${need}: missing`);
}
if (!names.some((n) => n.startsWith("scenario-"))) fail("no scenario page");

const only = opt("--page");
for (const name of (timingOnly ? ["index.html"] : (only ? [only] : names))) {
  const { page, errors, wall, nav } = await open(name);
  const info = { wall_ms: wall, nav };
  summary.pages[name] = info;
  if (timingOnly) {
    if (screenshot) await page.screenshot({ path: screenshot, fullPage: false });
    await page.close();
    continue;
  }
  if (name.startsWith("scenario-")) {
    await page.waitForFunction(() => !document.querySelector("#latest tbody tr.loading"), null, { timeout: 15000 })
      .catch(() => fail(`${name}: the results table never loaded its data`));
    const rows = await visibleRows(page);
    info.rows = rows.length;
    // what the reader sees in the results table: its headers and the first row's cells
    info.headers = await page.evaluate(() => Array.from(document.querySelectorAll("#latest thead th")).map((h) => h.textContent.trim()));
    info.first_row = await page.evaluate(() => Array.from(document.querySelectorAll("#latest tbody tr[data-os]")[0]?.cells || []).map((c) => c.textContent.trim()));
    if (rows.length === 0) fail(`${name}: the results table is empty`);
    // a filter changes what is shown
    const options = await page.evaluate(() => Array.from(document.querySelectorAll("#filters select")).map((s) => ({
      id: s.id, values: Array.from(s.options).map((o) => o.value).filter((v) => v) })));
    let changed = false;
    for (const o of options) {
      for (const v of o.values) {
        await page.selectOption(`#${o.id}`, v);
        const now = await visibleRows(page);
        const key = o.id.replace("f-", "");
        if (key !== "size" && now.some((r) => key === "toolchain" ? r.toolchain !== v : r[key] !== v)) {
          fail(`${name}: filter ${key}=${v} shows rows of another ${key}`);
        }
        const hiddenCharts = await page.evaluate(() => document.querySelectorAll("figure.chart[hidden]").length);
        if (now.length > 0 && now.length < rows.length) changed = true;
        if (key === "os" && options.find((x) => x.id === "f-os").values.length > 1 && hiddenCharts === 0) {
          fail(`${name}: filter os=${v} hides no chart`);
        }
        await page.selectOption(`#${o.id}`, "");
        if (changed) break;
      }
      if (changed) break;
    }
    info.filter_changed = changed;
    if (!changed && rows.length > 1) fail(`${name}: no filter changed the rows shown`);
    const count = await page.textContent("#shown-count");
    if (!/\d+ of \d+ benchmarks shown/.test(count || "")) fail(`${name}: no 'N of M shown' count (${count})`);
  }
  const imgs = await loadAllImages(page);
  info.images = imgs.length;
  for (const i of imgs) if (!(i.w > 0 && i.h > 0)) fail(`${name}: image ${i.src} did not load (size ${i.w}x${i.h})`);
  if (name.startsWith("scenario-") && !imgs.some((i) => /\/bars-/.test(i.src))) fail(`${name}: no Go-against-Rust bar chart`);
  if (name.startsWith("scenario-") && !imgs.some((i) => /\/trend-/.test(i.src))) fail(`${name}: no trend chart`);
  if (name === "index.html" && imgs.length === 0) fail(`index.html: no chart`);
  if (name === "compilers.html") {
    // what a reader of the Compiler versions page sees: one verdict per row
    info.verdicts = await page.evaluate(() => Array.from(document.querySelectorAll("table.versions")).map((t) =>
      Array.from(t.querySelectorAll("tbody td.verdict")).map((c) => c.textContent.trim())));
    info.version_headers = await page.evaluate(() => Array.from(document.querySelectorAll("table.versions thead th")).map((h) => h.textContent.trim()));
  }
  if (name === "index.html") {
    info.overview_headers = await page.evaluate(() => Array.from(document.querySelectorAll("table.overview thead th")).map((h) => h.textContent.trim()));
    info.lead = await page.evaluate(() => document.querySelector("p.lead")?.textContent || "");
  }
  if (xss) {
    const text = await page.evaluate(() => document.body.innerText);
    const scripts = await page.evaluate(() => Array.from(document.scripts).map((s) => s.src || s.textContent));
    if (scripts.some((s) => s.includes("alert("))) fail(`${name}: an injected script element exists`);
    info.xss_text = text.includes(xss);
  }
  for (const e of errors) fail(`${name}: ${e}`);
  if (screenshot && name === (only || "index.html")) {
    await page.screenshot({ path: screenshot, fullPage: false });
  }
  for (const p of await page.evaluate(layoutProblems)) fail(`${name} at 1400 px: ${p}`);
  (summary.layout ||= {})[`${name}@1400`] = failures.filter((f) => f.startsWith(`${name} at 1400 px`)).length;
  if (shots) await page.screenshot({ path: path.join(shots, name.replace(/\.html$/, "") + "-1400.png"), fullPage: true });
  await page.close();
}

// Text drawn over other text, or wider than the screen outside a scroll box (tables scroll
// sideways inside .scroll by design). Checked in the page, on what is laid out.
function layoutProblems() {
  const out = [], wide = [];
  const vw = document.documentElement.clientWidth;
  const inScroll = (el) => el.closest(".scroll");
  const texts = Array.from(document.querySelectorAll("h1,h2,h3,p,label,nav a,th,td,figcaption,li,small,summary,code,b"))
    .filter((el) => el.offsetParent !== null && el.textContent.trim() && !el.closest("[hidden]"))
    .slice(0, 600);
  // one box per line for inline elements (a <code> that wraps spans two lines, not the block between)
  const boxes = texts.map((el) => Array.from(el.getClientRects()));
  const hit = (r, q) => Math.min(r.right, q.right) - Math.max(r.left, q.left) > 2 &&
    Math.min(r.bottom, q.bottom) - Math.max(r.top, q.top) > 2;
  for (let i = 0; i < texts.length; i++) {
    const r = texts[i].getBoundingClientRect();
    if (!inScroll(texts[i]) && r.right > vw + 1 && r.width > 0) wide.push(`wider than the screen: <${texts[i].tagName.toLowerCase()}> "${texts[i].textContent.trim().slice(0, 40)}" ends at ${Math.round(r.right)} px of ${vw}`);
    for (let j = i + 1; j < texts.length; j++) {
      if (texts[i].contains(texts[j]) || texts[j].contains(texts[i])) continue;
      if (boxes[i].some((a) => boxes[j].some((b) => hit(a, b)))) {
        out.push(`text over text: "${texts[i].textContent.trim().slice(0, 30)}" and "${texts[j].textContent.trim().slice(0, 30)}"`);
      }
    }
  }
  if (document.documentElement.scrollWidth > vw + 1) wide.unshift(`the page scrolls sideways: ${document.documentElement.scrollWidth} px wide at ${vw}`);
  return out.slice(0, 3).concat(wide.slice(0, 3));
}

// The bar charts a page shows: which file the browser picked, and the scale it is drawn at
// (shown width over the SVG's own width, from its viewBox).
async function chartScales(page) {
  const shown = await page.evaluate(() => Array.from(document.querySelectorAll('figure.chart[data-kind="bars"] img'))
    .filter((img) => img.offsetParent !== null)
    .map((img) => ({ src: decodeURIComponent(new URL(img.currentSrc).pathname), width: img.getBoundingClientRect().width })));
  return shown.map(({ src, width }) => {
    const box = /viewBox="0 0 ([0-9.]+) /.exec(fs.readFileSync(src, "utf8"));
    return { file: path.basename(src), scale: box ? width / Number(box[1]) : 0 };
  });
}

if (!timingOnly) {
  // 1400 px was checked above, on the pages already open; phone width needs a context of its own
  const ctx = await browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 1 });
  for (const name of (only ? [only] : names)) {
    const page = await ctx.newPage();
    const errors = [];
    page.on("console", (m) => { if (m.type() === "error") errors.push(`console: ${m.text()}`); });
    page.on("pageerror", (e) => errors.push(`exception: ${e.message}`));
    await page.goto(pathToFileURL(path.join(siteDir, name)).href, { waitUntil: "load" });
    await page.waitForFunction(() => !document.querySelector("#latest tbody tr.loading"), null, { timeout: 15000 }).catch(() => {});
    await loadAllImages(page);
    const problems = await page.evaluate(layoutProblems);
    (summary.layout ||= {})[`${name}@390`] = problems.length;
    for (const p of problems.concat(errors)) fail(`${name} at 390 px: ${p}`);
    for (const c of await chartScales(page)) {
      (summary.bar_chart_scale_390 ||= {})[c.file] = Number(c.scale.toFixed(2));
      if (!c.file.endsWith("-narrow.svg")) fail(`${name} at 390 px: the bar chart shown is ${c.file}, not its phone twin`);
      else if (c.scale < 0.8) fail(`${name} at 390 px: ${c.file} is drawn at ${c.scale.toFixed(2)} of its size (type too small)`);
    }
    if (shots) await page.screenshot({ path: path.join(shots, name.replace(/\.html$/, "") + "-390.png"), fullPage: true });
    await page.close();
  }
  await ctx.close();
}
if (xss && !timingOnly) {
  const shown = Object.entries(summary.pages).filter(([, v]) => v.xss_text).map(([k]) => k);
  summary.xss_shown_on = shown;
  if (shown.length === 0) fail(`the text ${xss} is shown on no page (it should be, as text)`);
}
if (summary.dialogs) fail(`${summary.dialogs} dialog(s) fired`);
await browser.close();
summary.failures = failures.length;
console.log(JSON.stringify(summary));
process.exit(failures.length ? 1 : 0);

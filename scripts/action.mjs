// The GitHub Action's step (action.yml): run `kprof check` with annotations on the rules file, write the Markdown
// check report (and a diff report) to the job summary, set the outputs, and fail exactly when the check does.
//
// Inputs come in the environment (INPUT_PROFILE, INPUT_RULES, INPUT_BASE, INPUT_DIFF_BASE), never
// pasted into a shell: action.yml maps `${{ inputs.* }}` to these, and kprof runs with an argument list, no shell.
// The reports hold kernel names from the profile, untrusted: they go to files (summary, report) as kprof wrote
// them, and only kprof's own `--format github` lines reach the log as workflow commands.
//
// Exit code: the check's (0 passed, 1 a rule broke, 2 bad rules, input or action inputs, 3 an internal error).
// A diff report that cannot be made is a warning: the step's verdict is the check's.

import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { appendFileSync, existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const env = process.env;
const input = (name) => (env[`INPUT_${name}`] ?? '').trim();

/** A workflow command's message: %, CR and LF escaped as GitHub's runner reads them. */
function commandData(s) {
  return s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

function annotate(level, title, message) {
  process.stdout.write(`::${level} title=${commandData(title).replace(/:/g, '%3A').replace(/,/g, '%2C')}::${commandData(message)}\n`);
}

/** Text from kprof's stderr, shown in the job summary: in a fenced block no line of it can close. */
function fenced(text) {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this pattern finds
  const clean = text.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029]/g, '?').trimEnd();
  const longest = Math.max(2, ...[...clean.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}text\n${clean}\n${fence}\n`;
}

/**
 * kprof's stderr under --format github, as plain text for the job summary: each `::error …::message` (or warning)
 * annotation becomes `kprof: message`, its %-escapes undone (the message itself is kprof's, input in it escaped).
 */
function plain(stderr) {
  return stderr.replace(
    /^::(?:error|warning)[^:]*::(.*)$/gm,
    (_, data) => `kprof: ${data.replace(/%0D/g, '\r').replace(/%0A/g, '\n').replace(/%25/g, '%')}`,
  );
}

function summary(markdown) {
  if (env.GITHUB_STEP_SUMMARY) appendFileSync(env.GITHUB_STEP_SUMMARY, markdown.endsWith('\n') ? `${markdown}\n` : `${markdown}\n\n`);
}

const outputs = {};
function writeOutputs() {
  if (!env.GITHUB_OUTPUT) return;
  let text = '';
  for (const [name, value] of Object.entries(outputs)) {
    // The multi-line form, with a delimiter no value can contain, as @actions/core writes it.
    let delimiter;
    do delimiter = `kprof_${randomBytes(12).toString('hex')}`;
    while (value.includes(delimiter));
    text += `${name}<<${delimiter}\n${value}\n${delimiter}\n`;
  }
  appendFileSync(env.GITHUB_OUTPUT, text);
}

/** Stop before the check: bad action inputs (or kprof not installable) are bad input, exit code 2. */
function badInput(message) {
  annotate('error', 'kprof action', message);
  summary(`### kprof check: not run\n\n${fenced(message)}`);
  Object.assign(outputs, { passed: 'false', 'report-path': '', 'html-report-path': '', 'diff-report-path': '', 'exit-code': '2' });
  writeOutputs();
  process.exit(2);
}

/**
 * The kprof to run: the copy at the ref the workflow's `uses:` names, never a package fetched by name. A checkout
 * of the action holds no bundle until it is built: its dependencies are installed without running their install
 * scripts (no native module is compiled, so the runner needs no python3 or C++ compiler; SQLite exports are read
 * where better-sqlite3 is installed) and esbuild bundles src/.
 */
function kprofCommand() {
  const root = resolve(env.GITHUB_ACTION_PATH ?? join(dirname(fileURLToPath(import.meta.url)), '..'));
  if (!existsSync(join(root, 'dist/bundle/cli.cjs'))) {
    process.stdout.write('::group::Building kprof (npm ci --ignore-scripts, then the bundle)\n');
    const steps = [
      ['npm', ['ci', '--ignore-scripts', '--no-audit', '--no-fund']],
      [process.execPath, [join(root, 'scripts/bundle.mjs')]],
    ];
    for (const [cmd, args] of steps) {
      const r = spawnSync(cmd, args, { cwd: root, stdio: ['ignore', 2, 2] });
      if (r.status !== 0) {
        process.stdout.write('::endgroup::\n');
        badInput(`could not build kprof in ${root} (${cmd === 'npm' ? 'npm ci' : 'the bundle'} exited ${r.status ?? r.signal}).`);
      }
    }
    process.stdout.write('::endgroup::\n');
  }
  return [process.execPath, join(root, 'bin/kprof.js')];
}

/**
 * Run kprof with `args`. With `log`, its stdout and stderr go to the log as they are (workflow commands of
 * `--format github` on both); else stdout is not shown and stderr goes to the log and is kept.
 */
function kprof(cmd, args, log) {
  const r = spawnSync(cmd[0], [...cmd.slice(1), ...args], {
    // stderr is kept (for the summary when the check cannot run) and passed on to the log as it is.
    stdio: ['ignore', log ? 'inherit' : 'pipe', 'pipe'],
    env: { ...env, NO_COLOR: '1' },
    maxBuffer: 256 * 1024 * 1024,
  });
  const stderr = r.stderr?.toString('utf8') ?? '';
  process.stderr.write(stderr);
  // A kprof that did not start or was killed is not a verdict: an internal error.
  const code = r.status ?? 3;
  if (r.error) return { code: 3, stderr: `${stderr}kprof did not run: ${r.error.message}\n` };
  return { code, stderr };
}

/** The hidden first line of the action's PR comment: the comment it updates rather than adds to. */
const MARKER = '<!-- kprof-check: sticky comment of the kprof GitHub Action; it is updated, not added to -->';
/** GitHub refuses a comment longer than 65,536 characters; the report is cut well below that. */
const COMMENT_LIMIT = 60_000;

/** The comment's body: the marker, the check report (cut to the limit), the link to the HTML report. */
function commentBody(report, artifactUrl, runUrl) {
  const link =
    artifactUrl !== ''
      ? `\n\n[The HTML report](${artifactUrl}) (the \`kprof-report\` artifact of this run).`
      : runUrl !== ''
        ? `\n\n[The run](${runUrl}): its summary holds the full report.`
        : '';
  let body = report.trimEnd();
  if (body.length > COMMENT_LIMIT) {
    // Cut at a line end, so that no table row or link is cut in half.
    const cut = body.lastIndexOf('\n', COMMENT_LIMIT);
    body = `${body.slice(0, cut > 0 ? cut : COMMENT_LIMIT)}\n\n… the report is longer than a comment holds (${COMMENT_LIMIT.toLocaleString('en-US')} characters); the rest is in the job summary and the HTML report.`;
  }
  return `${MARKER}\n${body}${link}\n`;
}

/**
 * The comment step (action.yml runs it after the check and the artifact upload): post the check report as one
 * sticky comment on the pull request, or update the one it posted before (found by MARKER). Never fails the
 * job: the gate is the check step's. Skipped, with a notice, off a pull request, without a token, or on a pull
 * request from a fork (its token cannot write); a refusal of the API (403, 404) is a warning.
 */
async function postComment() {
  const say = (level, message) => annotate(level, 'kprof comment', message);
  const token = input('GITHUB_TOKEN');
  const report = input('REPORT_PATH');
  const repo = env.GITHUB_REPOSITORY ?? '';
  const api = (env.GITHUB_API_URL || 'https://api.github.com').replace(/\/+$/, '');
  let event = {};
  try {
    event = env.GITHUB_EVENT_PATH ? JSON.parse(readFileSync(env.GITHUB_EVENT_PATH, 'utf8')) : {};
  } catch {
    event = {};
  }
  const pr = event.pull_request;
  if (!pr || !Number.isSafeInteger(pr.number)) return say('notice', 'not a pull request: no comment posted.');
  if (report === '' || !existsSync(report)) return say('notice', 'the check wrote no report: no comment posted.');
  if (token === '') return say('notice', 'no github-token: no comment posted.');
  // A pull request from a fork runs with a read-only token: posting would fail, so it is not tried.
  const head = pr.head?.repo?.full_name;
  if (typeof head === 'string' && head !== repo)
    return say('notice', `a pull request from the fork ${head}: its token cannot comment; no comment posted.`);
  if (!/^[\w.-]+\/[\w.-]+$/.test(repo)) return say('warning', 'GITHUB_REPOSITORY is not owner/name: no comment posted.');
  const runUrl = env.GITHUB_SERVER_URL && env.GITHUB_RUN_ID ? `${env.GITHUB_SERVER_URL}/${repo}/actions/runs/${env.GITHUB_RUN_ID}` : '';
  const body = commentBody(readFileSync(report, 'utf8'), input('ARTIFACT_URL'), runUrl);
  const call = async (method, path, data) => {
    const r = await fetch(`${api}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        accept: 'application/vnd.github+json',
        'x-github-api-version': '2022-11-28',
        'user-agent': 'kprof-action',
        ...(data ? { 'content-type': 'application/json' } : {}),
      },
      body: data ? JSON.stringify(data) : undefined,
    });
    if (!r.ok) throw new Error(`${method} ${path}: HTTP ${r.status}`);
    return r.json();
  };
  try {
    // The comment to update is one this token posted: anyone can write a comment that starts with the marker. A
    // personal token's user is asked for; the workflow's own token may not ask (HTTP 403) and posts as a bot, which
    // no one can write as.
    let me = null;
    try {
      const user = await call('GET', '/user');
      if (typeof user?.login === 'string') me = user.login;
    } catch {
      me = null;
    }
    const ours = (c) => (me !== null ? c?.user?.login === me : c?.user?.type === 'Bot');
    let existing = null;
    for (let page = 1; page <= 50 && existing === null; page++) {
      const list = await call('GET', `/repos/${repo}/issues/${pr.number}/comments?per_page=100&page=${page}`);
      if (!Array.isArray(list)) break;
      existing = list.find((c) => typeof c?.body === 'string' && c.body.startsWith(MARKER) && Number.isSafeInteger(c.id) && ours(c)) ?? null;
      if (list.length < 100) break;
    }
    if (existing !== null) await call('PATCH', `/repos/${repo}/issues/comments/${existing.id}`, { body });
    else await call('POST', `/repos/${repo}/issues/${pr.number}/comments`, { body });
    process.stdout.write(`kprof: ${existing !== null ? 'updated the' : 'posted a'} comment on pull request #${pr.number}\n`);
  } catch (e) {
    say('warning', `could not post the comment (${e instanceof Error ? e.message : String(e)}); the gate is the check's verdict.`);
  }
}

function main() {
  const profile = input('PROFILE');
  const rules = input('RULES');
  const base = input('BASE');
  const diffBase = input('DIFF_BASE');
  if (profile === '') badInput('profile: required; the profile to check (a profile folder, an export or a summary JSON).');
  if (rules === '') badInput('rules: required; the rules file (kprof rules writes a starter one).');

  const work = mkdtempSync(join(env.RUNNER_TEMP || tmpdir(), 'kprof-'));
  const cmd = kprofCommand();
  // Options as --name=value and the paths after `--`: an input that starts with a dash (`--help`, `-q`) is a path,
  // never an option of kprof's (`profile: --help` printed the usage and passed the gate, having checked nothing).
  const checkOptions = ['check', `--rules=${rules}`, ...(base === '' ? [] : [`--base=${base}`])];

  // 1. The check, once: annotations on the rules file (and kprof's own error messages) in the log with
  //    --format github, and the same verdict as Markdown for the job summary and the report-path output.
  const reportPath = join(work, 'kprof-check.md');
  const htmlPath = join(work, 'kprof-check.html');
  const check = kprof(cmd, [...checkOptions, '--format', 'github', '--markdown-out', reportPath, '--html-out', htmlPath, '--', profile], true);
  const code = check.code;
  let report = '';
  const html = (code === 0 || code === 1) && existsSync(htmlPath) ? htmlPath : '';
  if (code === 0 || code === 1) {
    if (existsSync(reportPath)) report = reportPath;
    else annotate('warning', 'kprof action', `the check exited ${code} but wrote no Markdown report.`);
    if (report !== '') summary(readFileSync(report, 'utf8'));
  } else {
    const what = code === 2 ? 'bad rules or input (exit code 2)' : `an internal error of kprof (exit code ${code})`;
    summary(`### kprof check: ${what}\n\n${fenced(plain(check.stderr) || what)}`);
  }

  // 3. A diff report against diff-base, when asked for.
  let diffReport = '';
  if (diffBase !== '') {
    const diffPath = join(work, 'kprof-diff.md');
    const d = kprof(cmd, ['diff', '--format', 'markdown', '-q', '-o', diffPath, '--', diffBase, profile], false);
    if (d.code === 0 && existsSync(diffPath)) {
      diffReport = diffPath;
      summary(`### kprof diff\n\n${readFileSync(diffPath, 'utf8')}`);
    } else {
      annotate('warning', 'kprof diff', d.stderr.trim() || `kprof diff exited ${d.code}`);
      summary(`### kprof diff: not made (exit code ${d.code})\n\n${fenced(d.stderr || `kprof diff exited ${d.code}`)}`);
    }
  }

  Object.assign(outputs, {
    passed: String(code === 0),
    'report-path': report,
    'html-report-path': html,
    'diff-report-path': diffReport,
    'exit-code': String(code),
  });
  writeOutputs();
  process.exitCode = code;
}

if (process.argv[2] === 'comment') await postComment();
else main();

// mcpconform's client adapter (contract v1: the README's "Certify your
// client") for the TypeScript SDK, @modelcontextprotocol/sdk (the version
// peers/ts/package.json pins), written as the SDK's documentation shows, with
// its defaults. ES modules, no build step: peers/certify-client.sh runs it
// with Node.js 22 beside the node_modules peers/ts/install.sh installs.
//
// stdio: StdioClientTransport runs MCPCONFORM_SERVER_COMMAND. http:
// StreamableHTTPClientTransport connects to MCPCONFORM_SERVER_URL, with
// MCPCONFORM_AUTH_TOKEN (as Authorization: Bearer) and MCPCONFORM_HEADERS in
// its requestInit headers, the SDK's documented way to send headers. Either
// way Client.connect runs the initialize handshake (the SDK speaks the
// legacy era only: its latest version is 2025-11-25, so no eras are claimed
// and MCPCONFORM_ERA is ignored), Client.listTools walks every page,
// Client.callTool calls each tool with {} under the request option timeout
// of MCPCONFORM_CALL_TIMEOUT_MS (the SDK's way to time a request out: it
// sends notifications/cancelled), and Client.close ends the client.
//
// What a server asks of the client is answered as MCPCONFORM_SAMPLING,
// MCPCONFORM_ELICITATION and MCPCONFORM_ROOTS say: each, set, declares its
// capability (elicitation in form and URL mode) and registers the SDK's
// request handler for it, which the SDK allows only for a declared
// capability; unset, nothing is declared, the SDK's default, and the SDK
// answers such a request with -32601.
//
// Exit statuses as the contract says: 0 after a run, 127 for a case the
// SDK cannot run (another transport; an MCPCONFORM_LIMITS override it has
// no setting for), 2 for a broken invocation.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';

const name = 'ts-client';
const exitUnsupported = 127;
const exitUsage = 2;

// The SDK's fixed limits that the contract has keys for: StdioClientTransport
// .close ends stdin, waits 2 s, sends SIGTERM, waits 2 s, then SIGKILL; the
// streamable HTTP client keeps a session id when the server sends one and
// goes on without one otherwise (allow_stateless). Neither has a setting, so
// an override of either is refused.
const stdioConfig = { shutdown_grace_ms: 2000 };
const httpConfig = { allow_stateless: 1 };

// codeUserRejected is the error a user's refusal of a sampling request is
// reported with (the spec's example; the SDK has no constant for it).
const codeUserRejected = -1;

class Unsupported extends Error {}

function fail(err) {
  process.stderr.write(`${name}: ${err.message}\n`);
  process.exit(err instanceof Unsupported ? exitUnsupported : exitUsage);
}

// readEnv reads the contract's variables, checked as mcpconform checks them.
function readEnv(env) {
  const e = {
    transport: env.MCPCONFORM_TRANSPORT ?? '',
    url: env.MCPCONFORM_SERVER_URL ?? '',
    token: env.MCPCONFORM_AUTH_TOKEN ?? '',
    parallel: env.MCPCONFORM_PARALLEL === '1',
    sampling: env.MCPCONFORM_SAMPLING ?? '',
    elicitation: env.MCPCONFORM_ELICITATION ?? '',
    roots: undefined,
    headers: {},
    limits: {},
    timeout: undefined,
  };
  const json = (key, what) => {
    try {
      return JSON.parse(env[key]);
    } catch {
      throw new Error(`${key} must be ${what}, got ${JSON.stringify(env[key])}`);
    }
  };
  switch (e.transport) {
    case 'stdio':
      e.command = json('MCPCONFORM_SERVER_COMMAND', 'a non-empty JSON array of strings');
      if (!Array.isArray(e.command) || e.command.length === 0 || e.command.some((a) => typeof a !== 'string')) {
        throw new Error(`MCPCONFORM_SERVER_COMMAND must be a non-empty JSON array of strings, got ${JSON.stringify(env.MCPCONFORM_SERVER_COMMAND)}`);
      }
      break;
    case 'http':
      if (!e.url) throw new Error('MCPCONFORM_SERVER_URL is not set; mcpconform client sets it for every HTTP check');
      break;
    case '':
      throw new Error('MCPCONFORM_TRANSPORT is not set; mcpconform client sets it for every check');
    default:
      throw new Unsupported(`transport ${JSON.stringify(e.transport)}: not supported by this client library`);
  }
  if (env.MCPCONFORM_CALL_TIMEOUT_MS) {
    const ms = Number(env.MCPCONFORM_CALL_TIMEOUT_MS);
    if (!Number.isInteger(ms) || ms <= 0) {
      throw new Error(`MCPCONFORM_CALL_TIMEOUT_MS must be a positive number of milliseconds, got ${JSON.stringify(env.MCPCONFORM_CALL_TIMEOUT_MS)}`);
    }
    e.timeout = ms;
  }
  if (env.MCPCONFORM_HEADERS) e.headers = json('MCPCONFORM_HEADERS', 'a JSON object of strings');
  if (env.MCPCONFORM_LIMITS) e.limits = json('MCPCONFORM_LIMITS', 'a JSON object of non-negative integers');
  if (e.sampling && e.sampling !== 'reject') {
    const s = json('MCPCONFORM_SAMPLING', 'the JSON object of a sampling result or "reject"');
    if (s === null || typeof s !== 'object' || Array.isArray(s)) {
      throw new Error(`MCPCONFORM_SAMPLING must be the JSON object of a sampling result or "reject", got ${JSON.stringify(e.sampling)}`);
    }
  }
  if (!['', 'accept', 'decline', 'cancel'].includes(e.elicitation)) {
    throw new Error(`MCPCONFORM_ELICITATION must be accept, decline or cancel, got ${JSON.stringify(e.elicitation)}`);
  }
  if (env.MCPCONFORM_ROOTS) {
    e.roots = json('MCPCONFORM_ROOTS', 'a JSON array of roots ([{"uri":"file:///…","name":"…"}])');
    if (!Array.isArray(e.roots) || e.roots.some((r) => !r || typeof r.uri !== 'string' || r.uri === '')) {
      throw new Error(`MCPCONFORM_ROOTS must be a JSON array of roots, each with a uri, got ${JSON.stringify(env.MCPCONFORM_ROOTS)}`);
    }
  }
  return e;
}

// plan makes the transport and the config line of one invocation.
function plan(e) {
  let transport;
  let config;
  if (e.transport === 'stdio') {
    if (e.token || Object.keys(e.headers).length > 0) {
      throw new Unsupported('headers over stdio');
    }
    const [command, ...args] = e.command;
    transport = new StdioClientTransport({ command, args });
    config = stdioConfig;
  } else {
    const headers = { ...e.headers };
    if (e.token) headers.Authorization = `Bearer ${e.token}`;
    transport = new StreamableHTTPClientTransport(new URL(e.url), { requestInit: { headers } });
    config = httpConfig;
  }
  for (const [key, value] of Object.entries(e.limits)) {
    if (config[key] !== value) {
      throw new Unsupported(`MCPCONFORM_LIMITS override ${key}=${value} (the SDK has no such setting)`);
    }
  }
  return { transport, config };
}

// capabilities declares what the client was told to answer.
function capabilities(e) {
  const caps = {};
  if (e.sampling) caps.sampling = {};
  if (e.elicitation) caps.elicitation = { form: {}, url: {} };
  if (e.roots) caps.roots = { listChanged: true };
  return caps;
}

// formDefaults is the content of a form as the user is shown it and submits
// it unchanged: every property of the requested schema that has a default,
// set to it.
function formDefaults(schema) {
  const content = {};
  for (const [key, p] of Object.entries(schema?.properties ?? {})) {
    if (p && typeof p === 'object' && 'default' in p) content[key] = p.default;
  }
  return content;
}

// answer registers the SDK's handlers for what the client declared.
function answer(client, e) {
  if (e.sampling) {
    client.setRequestHandler(CreateMessageRequestSchema, () => {
      if (e.sampling === 'reject') throw new McpError(codeUserRejected, 'the user rejected the sampling request');
      return JSON.parse(e.sampling);
    });
  }
  if (e.elicitation) {
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      const { params } = request;
      if (e.elicitation !== 'accept') return { action: e.elicitation };
      if (params.mode === 'url') return { action: 'accept' };
      return { action: 'accept', content: formDefaults(params.requestedSchema) };
    });
  }
  if (e.roots) {
    client.setRequestHandler(ListRootsRequestSchema, () => ({ roots: e.roots }));
  }
}

const print = (line) => process.stdout.write(JSON.stringify(line) + '\n');

// phase times one step and returns its contract line's body.
async function phase(step) {
  const start = performance.now();
  const line = { outcome: 'ok' };
  try {
    await step();
  } catch (err) {
    line.outcome = 'error';
    line.error = err instanceof Error ? err.message : String(err);
  }
  line.elapsed_ms = Math.round(performance.now() - start);
  return line;
}

async function run(e) {
  const { transport, config } = plan(e);
  const client = new Client({ name: 'mcpconform-ts-client', version: '1.0.0' }, { capabilities: capabilities(e) });
  answer(client, e);
  print({ config });
  const connect = await phase(() => client.connect(transport));
  print({ connect });
  if (connect.outcome !== 'ok') return;
  const options = e.timeout ? { timeout: e.timeout } : undefined;
  const tools = [];
  const list = await phase(async () => {
    let cursor;
    do {
      const page = await client.listTools(cursor === undefined ? undefined : { cursor }, options);
      tools.push(...page.tools.map((t) => t.name));
      cursor = page.nextCursor;
    } while (cursor !== undefined);
  });
  print({ list });
  if (list.outcome === 'ok') {
    const call = async (tool) => print({ tool, ...(await phase(() => client.callTool({ name: tool, arguments: {} }, undefined, options))) });
    if (e.parallel) {
      await Promise.all(tools.map(call));
    } else {
      for (const tool of tools) await call(tool);
    }
  }
  print({ close: await phase(() => client.close()) });
}

let env;
try {
  env = readEnv(process.env);
  await run(env);
} catch (err) {
  fail(err);
}
process.exit(0);

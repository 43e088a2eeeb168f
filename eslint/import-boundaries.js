// @ts-check
/**
 * Keeps the architecture of docs/ARCHITECTURE.md honest:
 *  - vendor SDKs and drivers are imported only in the one folder that owns them;
 *  - layers import only the layers they depend on (relative imports are resolved to a layer);
 *  - src/stream and src/humanizer stay pure (no packages, no Node built-ins).
 * Test files are exempt: they wire real SDKs and servers together on purpose.
 */
import path from 'node:path';

/** Package → the only folder allowed to import it. */
const OWNED_PACKAGES = [
  {
    label: 'discord.js',
    modules: ['discord.js', '@discordjs/', 'discord-api-types'],
    owner: 'src/bot/',
  },
  { label: 'the OpenAI SDK', modules: ['openai'], owner: 'src/providers/openai/' },
  { label: 'the Google GenAI SDK', modules: ['@google/genai'], owner: 'src/providers/google/' },
  { label: 'the Anthropic SDK', modules: ['@anthropic-ai/sdk'], owner: 'src/providers/anthropic/' },
  {
    label: 'a database driver',
    modules: ['drizzle-orm', 'pg', '@electric-sql/pglite', 'drizzle-kit'],
    owner: 'src/db/',
  },
  { label: 'the MCP SDK', modules: ['@modelcontextprotocol/sdk'], owner: 'src/tools/mcp/' },
];

/** What the Discord edge (src/bot) builds on. */
const BELOW_BOT = [
  'core',
  'stream',
  'humanizer',
  'providers',
  'tools',
  'db',
  'metrics',
  'security',
];

/** Everything: the composition root (src/main.ts) and its application layer may wire it all. */
const EVERYTHING = [...BELOW_BOT, 'bot', 'app', 'root'];

/**
 * The stages of src/bot, each a layer: a message flows client → intake → turns (→ context,
 * stops, delivery), and no stage reaches back up the flow (intake hands turns its messages
 * through a port it declares, turns/ implements it). The files at src/bot's root wire them.
 * @param {Record<string, string[]>} stages stage → the other stages it may import
 * @returns {Record<string, string[]>}
 */
function botStages(stages) {
  return Object.fromEntries(
    Object.entries(stages).map(([stage, uses]) => [
      `bot/${stage}`,
      [...BELOW_BOT, `bot/${stage}`, ...uses.map((use) => `bot/${use}`)],
    ]),
  );
}

/**
 * Layer → layers it may import (relative imports). A layer is a folder of src/ (or, where a
 * folder has stages of its own, `folder/stage`); an entry allows that layer and its stages.
 * `root` is src/main.ts, `app` is src/app/ (config, logging, the process's lifecycle).
 * Inside src/stream the stages run one way: blocks ← reply ← turn, stop on its own.
 * @type {Record<string, string[]>}
 */
const LAYER_DEPENDENCIES = {
  core: ['core'],
  humanizer: ['core', 'humanizer'],
  stream: ['core', 'humanizer', 'stream'],
  'stream/blocks': ['core', 'humanizer', 'stream/blocks'],
  'stream/reply': ['core', 'humanizer', 'stream/blocks', 'stream/reply'],
  'stream/stop': ['core', 'stream/stop'],
  'stream/speech': ['core', 'stream/speech'],
  'stream/turn': ['core', 'humanizer', 'stream'],
  'stream/testing': ['core', 'humanizer', 'stream'],
  providers: ['core', 'providers'],
  db: ['core', 'db', 'security'],
  tools: ['core', 'tools', 'db'],
  metrics: ['core', 'metrics'],
  security: ['core', 'security'],
  bot: [...BELOW_BOT, 'bot'],
  ...botStages({
    i18n: [],
    settings: [],
    limits: [],
    control: ['cast', 'limits', 'settings'],
    rest: [],
    cast: ['settings'],
    client: ['rest'],
    delivery: ['client', 'i18n'],
    context: ['client', 'limits'],
    stops: ['client', 'control', 'delivery', 'i18n'],
    intake: ['cast', 'client', 'context', 'delivery', 'i18n', 'limits', 'settings', 'stops'],
    turns: [
      'cast',
      'client',
      'context',
      'delivery',
      'i18n',
      'intake',
      'limits',
      'settings',
      'stops',
    ],
    voice: [
      'client',
      'context',
      'delivery',
      'i18n',
      'intake',
      'limits',
      'settings',
      'stops',
      'turns',
    ],
    recovery: ['cast', 'client', 'context', 'delivery', 'i18n', 'intake'],
    commands: [
      'cast',
      'client',
      'context',
      'delivery',
      'i18n',
      'limits',
      'settings',
      'stops',
      'voice',
    ],
    sharding: ['client'],
  }),
  app: EVERYTHING,
  root: EVERYTHING,
};

/** Folders whose stages are layers of their own. */
const STAGED = new Set(['stream', 'bot']);

const PURE_LAYERS = ['stream', 'humanizer', 'core'];

/** @param {string} layer @param {string} entry */
function within(layer, entry) {
  return layer === entry || layer.startsWith(`${entry}/`);
}

/** @param {string} source @param {string} name */
function matchesPackage(source, name) {
  if (name.endsWith('/')) return source.startsWith(name);
  return source === name || source.startsWith(`${name}/`);
}

/** @param {string} file absolute or cwd-relative path */
function layerOf(file, root) {
  const relative = path.relative(root, path.resolve(file)).split(path.sep).join('/');
  if (!relative.startsWith('src/')) return undefined;
  const parts = relative.slice('src/'.length).split('/');
  if (parts.length === 1) return 'root';
  const top = parts[0] ?? '';
  return STAGED.has(top) && parts.length > 2 ? `${top}/${parts[1]}` : top;
}

/** @type {import('eslint').Rule.RuleModule} */
const rule = {
  meta: {
    type: 'problem',
    docs: { description: 'Enforce the import boundaries of the architecture' },
    schema: [],
  },
  create(context) {
    const filename = context.filename;
    const root = context.cwd;
    const relativeFile = path.relative(root, filename).split(path.sep).join('/');
    if (!relativeFile.startsWith('src/') || /\.test\.ts$/.test(relativeFile)) return {};
    const layer = layerOf(filename, root);

    /** @param {import('estree').Node} node @param {string} source */
    function check(node, source) {
      if (source.startsWith('.')) {
        const target = layerOf(path.resolve(path.dirname(filename), source), root);
        const allowed = layer ? LAYER_DEPENDENCIES[layer] : undefined;
        if (layer && target && allowed && !allowed.some((entry) => within(target, entry))) {
          context.report({
            node,
            message: `src/${layer} must not import from src/${target === 'root' ? 'main.ts' : target} (allowed: ${allowed.join(', ')})`,
          });
        }
        return;
      }
      if (layer && PURE_LAYERS.some((pure) => within(layer, pure))) {
        context.report({
          node,
          message: `src/${layer} is pure: it must not import '${source}' (inject what it needs instead)`,
        });
        return;
      }
      for (const owned of OWNED_PACKAGES) {
        if (
          owned.modules.some((name) => matchesPackage(source, name)) &&
          !relativeFile.startsWith(owned.owner)
        ) {
          context.report({
            node,
            message: `only ${owned.owner} may import ${owned.label} ('${source}')`,
          });
        }
      }
    }

    return {
      ImportDeclaration(node) {
        check(node, String(node.source.value));
      },
      ExportNamedDeclaration(node) {
        if (node.source) check(node, String(node.source.value));
      },
      ExportAllDeclaration(node) {
        check(node, String(node.source.value));
      },
      ImportExpression(node) {
        if (node.source.type === 'Literal' && typeof node.source.value === 'string')
          check(node, node.source.value);
      },
    };
  },
};

export default { rules: { 'import-boundaries': rule } };

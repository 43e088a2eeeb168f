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

/** What the composition root (src/index.ts, src/shard-manager.ts …) and its phases may wire. */
const COMPOSITION = [
  'core',
  'root',
  'startup',
  'bot',
  'stream',
  'humanizer',
  'providers',
  'tools',
  'db',
  'metrics',
  'security',
];

/**
 * Layer → layers it may import (relative imports). `root` is src/*.ts (composition root, config,
 * logger); `startup` is src/startup/ (the composition root's phases).
 */
const LAYER_DEPENDENCIES = {
  core: ['core'],
  humanizer: ['core', 'humanizer'],
  stream: ['core', 'stream', 'humanizer'],
  providers: ['core', 'providers'],
  db: ['core', 'db', 'security'],
  tools: ['core', 'tools', 'db'],
  metrics: ['core', 'metrics'],
  security: ['core', 'security'],
  bot: ['core', 'bot', 'stream', 'humanizer', 'providers', 'tools', 'db', 'metrics', 'security'],
  root: COMPOSITION,
  // The composition root's phases, taken out of src/index.ts: only it imports them.
  startup: COMPOSITION,
};

const PURE_LAYERS = new Set(['stream', 'humanizer', 'core']);

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
  return parts.length === 1 ? 'root' : parts[0];
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
        if (layer && target && allowed && !allowed.includes(target)) {
          context.report({
            node,
            message: `src/${layer} must not import from src/${target === 'root' ? '*.ts' : target} (allowed: ${allowed.join(', ')})`,
          });
        }
        return;
      }
      if (layer && PURE_LAYERS.has(layer)) {
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

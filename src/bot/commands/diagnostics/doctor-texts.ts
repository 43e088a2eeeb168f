import { commandText } from '../command-text.ts';

/** `/doctor`'s texts, en and ja side by side; each failing line says what to do. */
export const doctorText = commandText({
  en: {
    description: 'Check my setup here: intents, permissions, database, provider key, model, MCP',
    title: 'Setup check',
    answeredBy: 'Answered by shard {shard} of {shards}, process {process}',
    gateway: 'Gateway intents',
    permissions: 'My permissions in this channel',
    database: 'Database',
    provider: 'AI provider',
    mcp: 'MCP servers',
    speech: 'Speech (voice messages)',
    speechOff: 'Off: the operator set no `SPEECH_PROVIDER`.',
    speechNotAdmin: 'On, with {provider}. Members with **Manage Server** see whether it answers.',
    speechHearing: 'hearing',
    speechSpeaking: 'speaking',
    speechOk: '{role}: `{model}` on {provider}',
    speechFailed:
      '{role}: `{model}` on {provider} does not answer ({kind}): check the `SPEECH_*` settings and the speech server; my logs say more.',
    intentOk: '{intent}',
    intentMissingContent:
      '{intent} is missing: turn on **Message Content Intent** in the Developer Portal (your application → Bot) and restart me.',
    intentMissing: '{intent} is missing: I must be started with it (update or restart me).',
    permissionOk: '{permission}',
    permissionMissing:
      '{permission} is missing: give my role this permission in this channel (channel settings → Permissions).',
    dmPermissions: 'In DMs there are no permissions to check.',
    threadPermissionElsewhere:
      '{permission}: needed only in threads, so checked there (run `/doctor` in a thread).',
    databaseOk: 'Answers in {ms} ms.',
    databaseSlow: 'Answers, but slowly ({ms} ms): check the database server’s load.',
    databaseDown:
      'Does not answer: check `DATABASE_URL` and the database server; my logs say more.',
    keysPending:
      '{count} stored API keys are still sealed under a previous encryption key: I reseal them at start. Keep `BOT_ENCRYPTION_KEY_PREVIOUS` until this line is gone.',
    keysUnreadable:
      '{count} stored API keys open with no configured encryption key: restore the old key in `BOT_ENCRYPTION_KEY_PREVIOUS`, or those servers must set theirs again.',
    keyOk: '{provider} accepts {whose}.',
    keyMissing: 'No API key for {provider}: an admin can add one with `/config apikey`.',
    keyRejected: '{provider} rejects {whose}: set a working one with `/config apikey`.',
    keyQuota:
      '{provider} says {whose} is out of credit or quota: check billing, or set another with `/config apikey`.',
    keyUnreadable:
      'The stored key cannot be read (my encryption key changed): set it again with `/config apikey`.',
    keyOtherProvider:
      'The stored key was saved for another provider, so it is not sent: set it again with `/config apikey`.',
    keyUnchecked: 'Could not check {provider} ({reason}): try again in a minute.',
    keyNotAdmin: 'Checked live only for members with **Manage Server**.',
    whoseScope: 'this server’s key',
    whoseDm: 'your key',
    whoseOperator: 'the bot operator’s key',
    modelOk: 'Model `{model}` exists.',
    modelMissing:
      'Model `{model}` does not exist at {provider}: pick another with `/config model`.',
    modelUnchecked: 'Model `{model}` not checked: the key has to work first.',
    serverModels:
      '{server} has {models}: pick one here with `/config model`, or the bot operator sets the default with `DEFAULT_MODEL` in `.env`.',
    mcpNone: 'None configured.',
    mcpReady: '`{name}`: ready, {tools} tools{off}',
    mcpConnecting: '`{name}`: connecting…{off}',
    mcpRestarting:
      '`{name}`: down, retrying {when} ({failures} failures): check that server; my logs say more.{off}',
    mcpStopped:
      '`{name}`: stopped: check its entry in `MCP_CONFIG` and my logs, then restart me.{off}',
    mcpOff: ' · switched off here (`/config tools`)',
    reasonTimeout: 'no answer in time',
    reasonRateLimit: 'rate-limited',
    reasonOverloaded: 'overloaded',
    reasonNetwork: 'unreachable',
    reasonOther: 'unexpected answer',
  },
  ja: {
    description: 'ここでの設定を確認：インテント、権限、データベース、APIキー、モデル、MCP',
    title: '設定チェック',
    answeredBy: 'シャード {shard}（全 {shards}）・プロセス {process} が応答しました',
    gateway: 'ゲートウェイインテント',
    permissions: 'このチャンネルでの権限',
    database: 'データベース',
    provider: 'AIプロバイダー',
    mcp: 'MCPサーバー',
    speech: '音声（ボイスメッセージ）',
    speechOff: 'オフ：運営者が `SPEECH_PROVIDER` を設定していません。',
    speechNotAdmin:
      'オン（{provider}）。応答するかどうかは **サーバー管理** 権限のあるメンバーに表示されます。',
    speechHearing: '聞き取り',
    speechSpeaking: '読み上げ',
    speechOk: '{role}：{provider} の `{model}`',
    speechFailed:
      '{role}：{provider} の `{model}` が応答しません（{kind}）。`SPEECH_*` の設定と音声サーバーを確認してください。詳細はログにあります。',
    intentOk: '{intent}',
    intentMissingContent:
      '{intent} がありません：Developer Portal（アプリ → Bot）で **Message Content Intent** を有効にして再起動してください。',
    intentMissing:
      '{intent} がありません：このインテントで起動する必要があります（更新または再起動）。',
    permissionOk: '{permission}',
    permissionMissing:
      '{permission} がありません：このチャンネルで私のロールにこの権限を付けてください（チャンネル設定 → 権限）。',
    dmPermissions: 'DMでは確認する権限はありません。',
    threadPermissionElsewhere:
      '{permission}：スレッドでのみ必要なので、スレッドで確認します（スレッドで `/doctor` を実行）。',
    databaseOk: '{ms} ms で応答。',
    databaseSlow: '応答が遅い（{ms} ms）：データベースサーバーの負荷を確認してください。',
    databaseDown:
      '応答なし：`DATABASE_URL` とデータベースサーバーを確認してください。詳細はログにあります。',
    keysPending:
      '{count} 件の保存済みAPIキーがまだ以前の暗号化キーで封印されています：起動時に再封印します。この行が消えるまで `BOT_ENCRYPTION_KEY_PREVIOUS` を残してください。',
    keysUnreadable:
      '{count} 件の保存済みAPIキーは、設定されたどの暗号化キーでも開けません：古いキーを `BOT_ENCRYPTION_KEY_PREVIOUS` に戻すか、該当サーバーで再設定してください。',
    keyOk: '{provider} は{whose}を受け付けています。',
    keyMissing: '{provider} のAPIキーがありません：管理者が `/config apikey` で追加できます。',
    keyRejected:
      '{provider} が{whose}を拒否しました：`/config apikey` で有効なキーを設定してください。',
    keyQuota:
      '{provider} によると{whose}のクレジットまたは利用枠が尽きています：請求設定を確認するか `/config apikey` で別のキーを設定してください。',
    keyUnreadable:
      '保存されたキーを読み取れません（暗号化キーが変わりました）：`/config apikey` で再設定してください。',
    keyOtherProvider:
      '保存されたキーは別のプロバイダー用なので送信しません：`/config apikey` で再設定してください。',
    keyUnchecked: '{provider} を確認できませんでした（{reason}）：少し待ってからもう一度どうぞ。',
    keyNotAdmin: 'ライブ確認は **サーバー管理** 権限を持つメンバーのみです。',
    whoseScope: 'このサーバーのキー',
    whoseDm: 'あなたのキー',
    whoseOperator: 'ボット運営者のキー',
    modelOk: 'モデル `{model}` は存在します。',
    modelMissing:
      'モデル `{model}` は {provider} にありません：`/config model` で別のモデルを選んでください。',
    modelUnchecked: 'モデル `{model}` は未確認：先にキーが有効である必要があります。',
    serverModels:
      '{server} にあるモデル：{models}。ここで `/config model` で選ぶか、ボット運営者が `.env` の `DEFAULT_MODEL` で既定を設定してください。',
    mcpNone: '設定されていません。',
    mcpReady: '`{name}`：準備完了、ツール {tools} 個{off}',
    mcpConnecting: '`{name}`：接続中…{off}',
    mcpRestarting:
      '`{name}`：停止中、{when} に再試行（失敗 {failures} 回）：そのサーバーを確認してください。詳細はログにあります。{off}',
    mcpStopped: '`{name}`：停止：`MCP_CONFIG` の設定とログを確認し、再起動してください。{off}',
    mcpOff: ' · ここでは無効（`/config tools`）',
    reasonTimeout: '時間内に応答なし',
    reasonRateLimit: 'レート制限中',
    reasonOverloaded: '混雑中',
    reasonNetwork: '接続できません',
    reasonOther: '予期しない応答',
  },
});

/** Permission and intent names as Discord's client shows them. */
export const DISPLAY_NAMES = {
  ViewChannel: { en: 'View Channel', ja: 'チャンネルを見る' },
  SendMessages: { en: 'Send Messages', ja: 'メッセージを送信' },
  SendMessagesInThreads: { en: 'Send Messages in Threads', ja: 'スレッドでメッセージを送信' },
  EmbedLinks: { en: 'Embed Links', ja: '埋め込みリンク' },
  AttachFiles: { en: 'Attach Files', ja: 'ファイルを添付' },
  AddReactions: { en: 'Add Reactions', ja: 'リアクションの追加' },
  ReadMessageHistory: { en: 'Read Message History', ja: 'メッセージ履歴を読む' },
  Guilds: { en: 'Guilds', ja: 'Guilds' },
  GuildMessages: { en: 'Guild Messages', ja: 'Guild Messages' },
  MessageContent: { en: 'Message Content', ja: 'Message Content' },
  DirectMessages: { en: 'Direct Messages', ja: 'Direct Messages' },
} as const;

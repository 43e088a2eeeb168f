import type { Locale } from './locale.ts';

/**
 * Every text the bot itself (not the model) shows members, in every supported language.
 * `{name}` placeholders are filled by `translate`. Keep them short: they appear in chat.
 */
const en = {
  'error.auth':
    "The AI provider rejected this server's API key. An admin can set a working one with `/config apikey`.",
  'error.quota':
    "This server's AI provider account is out of credit or quota. An admin can check billing or set another key with `/config apikey`.",
  'error.rate_limit':
    'The AI provider is rate-limiting us right now. Please try again in a moment.',
  'error.overloaded': 'The AI provider is overloaded right now. Please try again in a moment.',
  'error.network': "I couldn't reach the AI provider. Please try again in a moment.",
  'error.timeout': 'The AI provider took too long to answer. Please try again.',
  'error.model':
    'The configured model is not available. An admin can pick another with `/config model`.',
  'error.context_overflow':
    'This conversation is too long for the model even after trimming. Try `/reset` to start fresh.',
  'error.content_filter': "The provider's safety filter blocked this reply.",
  'error.bad_request': 'The AI provider refused the request. Please try again or rephrase.',
  'error.unknown': 'Something went wrong while answering. Please try again.',
  'error.not_configured':
    'No AI provider key is set up here yet. An admin can add one with `/config apikey`.',
  'error.secret_unreadable':
    "This server's stored API key can't be read (the bot's encryption key changed). An admin can set it again with `/config apikey`.",
  'error.secret_wrong_provider':
    "This server's stored API key was saved for a different AI provider than the one it uses now, so I won't send it. An admin can set it again with `/config apikey`.",
  'error.incident': 'Incident `{incident}`',
  'error.delivery':
    "Discord didn't accept part of my reply, so it is incomplete. Please try again.",
  'delivery.gap': '(part of this reply could not be sent)',
  'error.message_too_large':
    'Your message is too long for the model to read ({tokens} tokens). Please shorten it.',
  'error.voice_too_long':
    'Your voice message is {seconds} s long; I can listen to at most {limit} s. Please send a shorter one.',
  'error.voice_unreadable': "I couldn't play that voice message. Please try again.",
  'error.voice_off': "I can't listen to voice messages here yet: no speech service is set up.",
  'button.retry': 'Retry',
  'button.stop': 'Stop',
  'note.stop_finished': 'That reply has already finished: there is nothing to stop.',
  'stop.stopped': '⏹️ Stopped. Nothing more of that reply will be sent.',
  'stop.no_live_turn': 'I am not writing anything in this channel right now.',
  'stop.not_requester':
    'Only the member I am answering or a moderator (**Manage Messages**) can stop this reply.',
  'stop.already_stopping': 'That reply is already stopping.',
  'stop.unconfirmed':
    '⏳ Stop sent. Another of my processes is writing that reply and has not confirmed yet; it stops the reply when the stop reaches it.',
  'note.channel_unsupported':
    "I can't chat in this kind of channel. Try a text channel, a thread or DMs.",
  'note.queue_full':
    "I'm still answering earlier messages here. Please wait a moment and ask again.",
  'note.member_rate_limited':
    "You're sending messages faster than I can answer. Try again in {seconds} s.",
  'note.budget_exhausted':
    "This server has used today's AI budget: {cost} and {tokens} tokens spent today. It resets at 00:00 UTC, in {wait}.",
  'note.member_budget_exhausted':
    'You have used your AI budget for today here: {cost} and {tokens} tokens spent today. It resets at 00:00 UTC, in {wait}.',
  'note.retry_not_yours': 'Only the person who asked can retry this.',
  'note.retry_expired': "I can't find the original message to retry anymore.",
  'note.storage_trouble':
    "I'm having trouble reaching my storage and couldn't take your message. Please ask again in a minute.",
  'note.voice_failed': "I couldn't say this reply out loud this time.",
  'note.restarted':
    'I was restarting and your message got cut off. Please ask again (or press Retry).',
  'note.retry_busy': "I'm still answering other messages here. Try Retry again in a moment.",
  'note.overdue':
    "Sorry, I couldn't get to your message in time. Please ask again (or press Retry).",
  'command.missing_permission': 'You need the **{permission}** permission to do this here.',
  'command.cooldown': 'Slow down a little: you can use this again in {seconds} s.',
  'command.failed': 'Something went wrong with this command. Please try again.',
  'command.unknown':
    "I don't know this command anymore. Discord may still be updating its list; try again in a minute.",
  'command.guild_only': 'This only works in a server channel.',
  'command.conflict':
    'Someone else changed these settings at the same moment. Nothing was saved; please try again.',
  'status.tool': 'Using `{tool}`…',
  'status.tools': 'Using tools: {tools}…',
} as const;

export type MessageKey = keyof typeof en;

const ja: Record<MessageKey, string> = {
  'error.auth':
    'AIプロバイダーがこのサーバーのAPIキーを拒否しました。管理者が `/config apikey` で有効なキーを設定できます。',
  'error.quota':
    'このサーバーのAIプロバイダーのクレジットまたは利用枠が尽きています。管理者が請求設定を確認するか `/config apikey` で別のキーを設定してください。',
  'error.rate_limit': 'AIプロバイダーのレート制限中です。少し待ってからもう一度お試しください。',
  'error.overloaded': 'AIプロバイダーが混み合っています。少し待ってからもう一度お試しください。',
  'error.network': 'AIプロバイダーに接続できませんでした。少し待ってからもう一度お試しください。',
  'error.timeout': 'AIプロバイダーの応答に時間がかかりすぎました。もう一度お試しください。',
  'error.model':
    '設定されたモデルは利用できません。管理者が `/config model` で別のモデルを選べます。',
  'error.context_overflow':
    '会話が長すぎてモデルが読み切れません。`/reset` で会話をリセットしてください。',
  'error.content_filter': 'プロバイダーの安全フィルターによって返信がブロックされました。',
  'error.bad_request':
    'AIプロバイダーがリクエストを拒否しました。言い方を変えてもう一度お試しください。',
  'error.unknown': '返信中に問題が発生しました。もう一度お試しください。',
  'error.not_configured':
    'AIプロバイダーのキーがまだ設定されていません。管理者が `/config apikey` で追加できます。',
  'error.secret_unreadable':
    '保存されたAPIキーを読み取れません（ボットの暗号化キーが変わりました）。管理者が `/config apikey` で再設定してください。',
  'error.secret_wrong_provider':
    '保存されたAPIキーは、現在使っているものとは別のAIプロバイダー用なので送信しません。管理者が `/config apikey` で再設定してください。',
  'error.incident': 'インシデント `{incident}`',
  'error.delivery':
    'Discord が返信の一部を受け付けなかったため、返信が途中までになっています。もう一度お試しください。',
  'delivery.gap': '（この返信の一部を送信できませんでした）',
  'error.message_too_large':
    'メッセージが長すぎてモデルが読めません（{tokens}トークン）。短くしてください。',
  'error.voice_too_long':
    'ボイスメッセージが長すぎます（{seconds}秒）。聞けるのは{limit}秒までです。短くして送ってください。',
  'error.voice_unreadable': 'ボイスメッセージを再生できませんでした。もう一度お試しください。',
  'error.voice_off':
    'ここではまだボイスメッセージを聞けません（音声サービスが設定されていません）。',
  'button.retry': '再試行',
  'button.stop': '停止',
  'note.stop_finished': 'その返信はもう終わっています。止めるものはありません。',
  'stop.stopped': '⏹️ 止めました。この返信の続きは送信されません。',
  'stop.no_live_turn': '今このチャンネルで書いている返信はありません。',
  'stop.not_requester':
    'この返信を止められるのは、返信相手のメンバーかモデレーター（**メッセージの管理**）だけです。',
  'stop.already_stopping': 'その返信はすでに止めています。',
  'stop.unconfirmed':
    '⏳ 停止を送りました。この返信は別のプロセスが書いていて、まだ確認が返ってきていません。停止が届きしだい返信を止めます。',
  'note.channel_unsupported':
    'この種類のチャンネルでは会話できません。テキストチャンネル、スレッド、またはDMでどうぞ。',
  'note.queue_full': 'まだ前のメッセージに返信中です。少し待ってからもう一度どうぞ。',
  'note.member_rate_limited':
    'メッセージが速すぎて返信が追いつきません。{seconds}秒後にもう一度どうぞ。',
  'note.budget_exhausted':
    'このサーバーは今日のAI予算を使い切りました（今日の使用：{cost}、{tokens} トークン）。UTC 0:00（あと{wait}）にリセットされます。',
  'note.member_budget_exhausted':
    'このサーバーでのあなたの今日のAI予算を使い切りました（今日の使用：{cost}、{tokens} トークン）。UTC 0:00（あと{wait}）にリセットされます。',
  'note.retry_not_yours': '再試行できるのは質問した本人だけです。',
  'note.retry_expired': '再試行する元のメッセージが見つかりません。',
  'note.storage_trouble':
    '保存先に接続できず、メッセージを受け付けられませんでした。少ししてからもう一度どうぞ。',
  'note.voice_failed': '今回はこの返信を声にできませんでした。',
  'note.restarted':
    '再起動中だったため、メッセージへの返信が途切れました。もう一度どうぞ（または再試行を押してください）。',
  'note.retry_busy': 'まだ他のメッセージに返信中です。少ししてからもう一度再試行してください。',
  'note.overdue':
    'すみません、時間内にメッセージに返信できませんでした。もう一度どうぞ（または再試行を押してください）。',
  'command.missing_permission': 'ここでこれを行うには **{permission}** 権限が必要です。',
  'command.cooldown': '少し待ってください。{seconds}秒後にもう一度使えます。',
  'command.failed': 'コマンドの実行中に問題が発生しました。もう一度お試しください。',
  'command.unknown':
    'このコマンドはもう存在しません。Discordが一覧を更新中かもしれません。少し待ってからお試しください。',
  'command.guild_only': 'これはサーバーのチャンネルでのみ使えます。',
  'command.conflict':
    '同じタイミングで他の人が設定を変更しました。保存されていません。もう一度お試しください。',
  'status.tool': '`{tool}` を使っています…',
  'status.tools': 'ツールを使っています: {tools}…',
};

const catalogues: Record<Locale, Record<MessageKey, string>> = { en, ja };

export function translate(
  locale: Locale,
  key: MessageKey,
  params: Readonly<Record<string, string | number>> = {},
): string {
  const template = catalogues[locale][key];
  return template.replace(/\{(\w+)\}/g, (match, name: string) =>
    name in params ? String(params[name]) : match,
  );
}

/** For tests and the command-definition walker: every catalogue, keyed by locale. */
export function catalogueOf(locale: Locale): Readonly<Record<MessageKey, string>> {
  return catalogues[locale];
}

export function isMessageKey(key: string): key is MessageKey {
  return Object.hasOwn(en, key);
}

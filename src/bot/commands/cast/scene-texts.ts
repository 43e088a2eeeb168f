import { commandText } from '../command-text.ts';

/** `/scene`'s texts, en and ja side by side. */
export const sceneText = commandText({
  en: {
    description: 'Who is on stage in this channel: characters members can talk with here',
    'add.description': 'Bring a character on stage here',
    'remove.description': 'Take a character off stage here',
    'list.description': 'Who is on stage here',
    name: 'The character',
    added:
      '**{name}** is on stage. Address it by name (“{name}, …”), by replying to it, or by its trigger words.',
    already: '**{name}** is already on stage here.',
    full: 'The stage holds {max} characters; take one off first.',
    removed: '**{name}** left the stage.',
    absent: '**{name}** is not on stage here.',
    list: '**On stage**, in turn order: {names}',
    empty:
      'Nobody is on stage here. Bring a character with `/scene add` (create one with `/character create`).',
    noWebhooks:
      'I cannot manage webhooks here, so characters will speak through me with their name shown. Give me **Manage Webhooks** for their own names and avatars.',
    greetingFailed: '**{name}** could not say its greeting here (Discord refused the message).',
  },
  ja: {
    description: 'このチャンネルの登場人物：ここでメンバーと話せるキャラクター',
    'add.description': 'キャラクターをここに登場させる',
    'remove.description': 'キャラクターをここから退場させる',
    'list.description': 'ここに登場しているキャラクター',
    name: 'キャラクター',
    added:
      '**{name}** が登場しました。名前で呼びかける（「{name}、…」）、返信する、またはトリガーワードで話しかけられます。',
    already: '**{name}** はすでにここに登場しています。',
    full: '登場できるのは{max}人までです。先に誰かを退場させてください。',
    removed: '**{name}** が退場しました。',
    absent: '**{name}** はここに登場していません。',
    list: '**登場中**（発言順）：{names}',
    empty:
      'ここには誰も登場していません。`/scene add` で登場させられます（作成は `/character create`）。',
    noWebhooks:
      'ここではウェブフックを管理できないため、キャラクターは名前を添えて私から話します。専用の名前とアバターには **ウェブフックの管理** 権限をください。',
    greetingFailed:
      '**{name}** はここで挨拶できませんでした（Discord がメッセージを拒否しました）。',
  },
});

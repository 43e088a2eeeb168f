import { commandText } from '../command-text.ts';

/** The message menu command's name, as members see it in the "Apps" menu. */
export const PIN_MENU_NAME = { en: 'Pin for Tomodachi', ja: 'Tomodachiにピン留め' } as const;

export const pinsText = commandText({
  en: {
    description: 'The messages I always keep in mind in this channel',
    list: 'Show the pinned messages',
    remove: 'Unpin a message (its number in /pins list)',
    number: 'The number shown by /pins list',
    header: '📌 Pinned in this channel (I always keep these in mind):',
    none: 'Nothing is pinned in this channel. Use “Pin for Tomodachi” in a message’s Apps menu.',
    auto: 'pinned automatically (start of the conversation)',
    no_such: 'There is no pin with that number: see /pins list.',
    not_yours: 'Only whoever pinned it, or a member with **Manage Messages**, can remove this pin.',
    removed: 'Pin {number} removed.',
    refused: 'Only the author of this message, or a member with **Manage Messages**, can pin it.',
    unknown_message: 'I cannot pin that message: it is not part of my conversation here.',
    pinned: '📌 Pinned: I will keep this message in mind in this channel.',
  },
  ja: {
    description: 'このチャンネルで常に覚えておくメッセージ',
    list: 'ピン留めされたメッセージを表示',
    remove: 'ピン留めを外す（/pins list の番号）',
    number: '/pins list に表示される番号',
    header: '📌 このチャンネルのピン留め（常に覚えておきます）：',
    none: 'このチャンネルにピン留めはありません。メッセージの「アプリ」メニューから「Tomodachiにピン留め」を使ってください。',
    auto: '自動でピン留め（会話の始め）',
    no_such: 'その番号のピン留めはありません。/pins list を見てください。',
    not_yours:
      'このピン留めを外せるのは、ピン留めした人か **メッセージの管理** 権限を持つメンバーだけです。',
    removed: 'ピン留め {number} を外しました。',
    refused:
      'このメッセージをピン留めできるのは、投稿者か **メッセージの管理** 権限を持つメンバーだけです。',
    unknown_message: 'そのメッセージはここでの会話の一部ではないので、ピン留めできません。',
    pinned: '📌 ピン留めしました：このチャンネルではこのメッセージを常に覚えておきます。',
  },
});

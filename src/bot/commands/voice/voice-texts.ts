import { commandText } from '../command-text.ts';

/** `/voice`'s texts, en and ja side by side. */
export const voiceText = commandText({
  en: {
    description: 'Talk with me in a voice channel',
    'join.description': 'Join your voice channel (or the one named) and talk there',
    'leave.description': 'Leave the voice channel',
    'status.description': 'Which voice channel I am in',
    channel: 'The voice channel (default: the one you are in)',
    joined:
      'I am in **{channel}** now. Talk to me there; say “stop” (or talk over me) to stop me.{text}',
    textOn: ' I also write what we say in its text chat.',
    moved: 'I moved to **{channel}**.',
    already: 'I am already in **{channel}**.',
    left: 'I left the voice channel.',
    notIn: 'I am not in a voice channel here.',
    status: 'In **{channel}** with {listeners} member(s); {activity}.',
    speaking: 'speaking',
    listening: 'listening',
    off: 'Voice channels are not turned on for this bot (its operator sets VOICE_CHANNELS=on and a speech provider).',
    noChannel: 'Join a voice channel first, or name one.',
    notVoice: 'That is not a voice channel.',
    notThere: 'You can bring me only into the voice channel you are in (or have **Move Members**).',
    cannotJoin: 'I cannot join **{channel}**: I need **Connect** and **Speak** there.',
    failed: 'I could not join **{channel}**: no voice connection came up. Try again in a moment.',
  },
  ja: {
    description: 'ボイスチャンネルで私と話す',
    'join.description': 'あなたのいるボイスチャンネル（または指定したもの）に参加して話す',
    'leave.description': 'ボイスチャンネルから退出する',
    'status.description': '私がいるボイスチャンネル',
    channel: 'ボイスチャンネル（省略時：あなたのいるチャンネル）',
    joined:
      '**{channel}** に参加しました。そこで話しかけてください。「止めて」と言う（または話をかぶせる）と止まります。{text}',
    textOn: '会話の文字はそのテキストチャットにも書きます。',
    moved: '**{channel}** に移動しました。',
    already: 'すでに **{channel}** にいます。',
    left: 'ボイスチャンネルから退出しました。',
    notIn: 'ここではボイスチャンネルにいません。',
    status: '**{channel}** にいます（メンバー{listeners}人）。いまは{activity}。',
    speaking: '話しています',
    listening: '聞いています',
    off: 'このボットではボイスチャンネルが有効になっていません（運営者が VOICE_CHANNELS=on と音声プロバイダーを設定します）。',
    noChannel: '先にボイスチャンネルに参加するか、チャンネルを指定してください。',
    notVoice: 'それはボイスチャンネルではありません。',
    notThere:
      '私を呼べるのは、あなたがいるボイスチャンネルだけです（**メンバーを移動** 権限があれば別です）。',
    cannotJoin: '**{channel}** に参加できません：そこでの **接続** と **発言** 権限が必要です。',
    failed:
      '**{channel}** に参加できませんでした：音声接続が確立しませんでした。少ししてからもう一度どうぞ。',
  },
});

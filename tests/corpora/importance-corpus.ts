import type { TurnRole } from '../../src/core/importance.ts';

export type ImportanceLabel = 'high' | 'normal' | 'low';

export interface LabelledTurn {
  role: TurnRole;
  text: string;
  label: ImportanceLabel;
}

const user = (label: ImportanceLabel, ...texts: string[]): LabelledTurn[] =>
  texts.map((text) => ({ role: 'user', text, label }));
const bot = (label: ImportanceLabel, ...texts: string[]): LabelledTurn[] =>
  texts.map((text) => ({ role: 'assistant', text, label }));

/** Long user messages are boosted: they usually carry the context. */
const LONG_STORY =
  'So here is the whole story of the weekend. We drove up to the lake on Friday evening, the traffic was terrible and it took almost four hours, then the cabin had no hot water until Saturday noon. On Saturday we rented a boat, my brother fell in twice, and we grilled fish in the evening. Sunday was rainy so we played board games all day and drove back at night.';

/**
 * Hand-labelled chat turns (en + ja) for the importance rules: `high` is what the context
 * must keep (constraints, decisions, priority shifts, the bot's questions), `low` is small
 * talk, `normal` everything else.
 */
export const IMPORTANCE_CORPUS: readonly LabelledTurn[] = [
  ...user(
    'high',
    'Always answer in French from now on.',
    'My dog is called Mochi.',
    'Never use emojis in your replies please.',
    'You must keep answers under three sentences.',
    "I'm allergic to peanuts, keep that in mind for recipes.",
    "I'm vegetarian.",
    'Please answer only in English.',
    'Make sure you cite the source for every number.',
    'The deadline for the report is Friday.',
    'My name is Kenji, by the way.',
    'Do not ever mention my ex.',
    "Let's go with the blue theme for the website.",
    "We'll use PostgreSQL for the backend.",
    'Decided: the party is on Saturday at 7.',
    'Confirmed, I booked the tickets.',
    'Change of plans: we meet at the station instead.',
    'Priority now is fixing the login bug.',
    'Focus on the budget section first.',
    'This is urgent, I need it by tonight.',
    'From now on call me Ken.',
    'My birthday is on March 3rd.',
    'Only use metric units.',
    'No more than 100 words per answer.',
    'My cat is named Tama.',
    'I will go with the cheaper laptop.',
    '必ず日本語で答えてください。',
    '絵文字は使わないでください。',
    '私の名前は花子です。',
    '僕の犬はポチです。',
    '締め切りは金曜日です。',
    '卵アレルギーがあります。',
    '敬語だけで答えて。',
    'これからはタメ口で話して。',
    '青いデザインにします。',
    '土曜日に決めました。',
    'それでいこう。',
    '優先はログインのバグ修正です。',
    '至急お願いします。',
    '予定変更で、駅で会いましょう。',
    '常に短く答えてね。',
    LONG_STORY,
  ),
  ...bot(
    'high',
    'Which city are you flying from?',
    'Do you want the vegetarian version of the recipe?',
    'Should I keep the answers in French?',
    'どちらの色がいいですか？',
    '何時に出発しますか',
    'What is your budget for the trip?',
    'Got it, I will always answer in French.',
    'Confirmed: the meeting is moved to Thursday.',
  ),
  ...user(
    'normal',
    'Can you explain how photosynthesis works?',
    'What is the capital of Australia?',
    'I tried the recipe yesterday, it was a bit salty.',
    'The movie was longer than I expected.',
    'How do I reverse a list in Python?',
    'Tell me a fun fact about octopuses.',
    'I am reading a book about the Meiji era.',
    'The train was late again this morning.',
    'What do you think about the new album?',
    'Write a haiku about autumn.',
    'How many calories are in a banana?',
    'My brother visited us last weekend.',
    'Explain the difference between TCP and UDP.',
    'I walked 10 km today.',
    'Recommend me a sci-fi novel.',
    '光合成について説明して。',
    'オーストラリアの首都はどこ？',
    '昨日カレーを作りました。',
    '電車がまた遅れた。',
    'おすすめの本を教えて。',
    'Pythonでリストを逆にするには？',
    '今日は10キロ歩いた。',
    '秋の俳句を書いて。',
    '新しいアルバムどう思う？',
    '週末に兄が来ました。',
  ),
  ...bot(
    'normal',
    'Photosynthesis turns light, water and CO2 into sugar and oxygen.',
    'The capital of Australia is Canberra.',
    'Octopuses have three hearts and blue blood.',
    'Use reversed(list) or list[::-1].',
    'Here is a haiku: red leaves on the path, the wind carries them away, quiet afternoon.',
    'A banana has about 105 calories.',
    'TCP is connection-oriented and reliable; UDP is connectionless and faster.',
    'That sounds like a lovely walk.',
    'オーストラリアの首都はキャンベラです。',
    '光合成は光のエネルギーで糖を作る仕組みです。',
    'リストは reversed() で逆順にできます。',
    'いい散歩でしたね。',
  ),
  ...user(
    'low',
    'hi',
    'hello!',
    'hey there',
    'good morning',
    'thanks!',
    'thank you so much',
    'lol',
    'haha',
    'ok',
    'cool',
    'nice',
    'bye',
    'see you later',
    'how are you?',
    "what's up",
    'yeah',
    'nope',
    '👍',
    '😂😂',
    'gn',
    'こんにちは',
    'おはよう！',
    'ありがとう',
    'うん',
    'なるほど',
    '草',
    'www',
    'またね',
    'おやすみ〜',
    'いいね！',
  ),
  ...bot('low', 'You are welcome!', 'Good morning!', 'haha', 'おはよう！', 'またね！', 'Hello!'),
];

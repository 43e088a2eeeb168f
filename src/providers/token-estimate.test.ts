import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import { estimateTokens } from './token-estimate.ts';

/** Representative chat text, each sample long enough for the ratio to be stable. */
const SAMPLES: Record<string, string> = {
  english:
    'It was a bright cold day in April, and the clocks were striking thirteen. Winston Smith, his chin nuzzled into his breast in an effort to escape the vile wind, slipped quickly through the glass doors of Victory Mansions, though not quickly enough to prevent a swirl of gritty dust from entering along with him.',
  code: `export function chunk<T>(items: readonly T[], size: number): T[][] {\n  const chunks: T[][] = [];\n  for (let index = 0; index < items.length; index += size) {\n    chunks.push(items.slice(index, index + size));\n  }\n  return chunks; // e.g. chunk([1, 2, 3], 2) => [[1, 2], [3]]\n}`,
  chinese:
    '我们今天去公园散步，天气很好。春天来了，花儿都开了，小鸟在树上唱歌。孩子们在草地上玩耍，老人们在长椅上聊天。这是一个美好的下午。',
  japanese:
    '吾輩は猫である。名前はまだ無い。どこで生れたかとんと見当がつかぬ。何でも薄暗いじめじめした所でニャーニャー泣いていた事だけは記憶している。',
  korean:
    '안녕하세요. 오늘 날씨가 정말 좋네요. 우리는 공원에 가서 산책을 하기로 했습니다. 점심은 근처 식당에서 먹을 예정입니다.',
  russian:
    'Все счастливые семьи похожи друг на друга, каждая несчастливая семья несчастлива по-своему. Всё смешалось в доме Облонских.',
  french:
    "Longtemps, je me suis couché de bonne heure. Parfois, à peine ma bougie éteinte, mes yeux se fermaient si vite que je n'avais pas le temps de me dire : « Je m'endors. »",
  discord:
    'hey lol did u see that?? https://example.com/foo/bar?x=1 `code` **bold** ~~strike~~ 12345 67890 great job 🎉🎉 see you soon 😀👍',
};

describe('estimateTokens', () => {
  it.each(Object.entries(SAMPLES))(
    'stays within 0.85–1.5× of the o200k count for %s',
    (_name, text) => {
      const ratio = estimateTokens(text) / countTokens(text);
      expect(ratio).toBeGreaterThanOrEqual(0.85);
      expect(ratio).toBeLessThanOrEqual(1.5);
    },
  );

  it('counts CJK text per character, not per byte or per space-separated word', () => {
    // Ten characters, no spaces: a word-based estimate would say 1, a byte-based one 30.
    expect(estimateTokens('今日は良い天気ですね。')).toBeGreaterThanOrEqual(8);
    expect(estimateTokens('今日は良い天気ですね。')).toBeLessThanOrEqual(12);
  });

  it('is zero for empty text and grows with the text', () => {
    expect(estimateTokens('')).toBe(0);
    expect(estimateTokens('hello world')).toBeLessThan(
      estimateTokens('hello world, how are you today?'),
    );
  });
});

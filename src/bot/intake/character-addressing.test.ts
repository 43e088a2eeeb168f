import { describe, expect, it } from 'vitest';
import type { Character } from '../../core/character.ts';
import { addressedCharacters, turnedToIn } from './character-addressing.ts';

function character(name: string, triggerWords: string[] = []): Character {
  return {
    id: `id-${name}`,
    scopeId: 'guild',
    name,
    avatarUrl: undefined,
    persona: `${name}.`,
    greeting: undefined,
    triggerWords,
    provider: undefined,
    model: undefined,
    temperature: undefined,
    humanizerDegree: undefined,
    language: undefined,
    card: undefined,
    createdBy: 'member',
  };
}

const alice = character('Alice', ['innkeeper']);
const bob = character('Bob', ['c++']);
const sakura = character('さくら');
const scene = [alice, bob, sakura];
const names = (characters: Character[]) => characters.map((item) => item.name);

describe('which characters a message addresses', () => {
  it('reads names in the opening address, in the order written', () => {
    expect(names(addressedCharacters({ content: 'Alice, how are you?', scene }))).toEqual([
      'Alice',
    ]);
    expect(names(addressedCharacters({ content: 'bob and ALICE: a toast!', scene }))).toEqual([
      'Bob',
      'Alice',
    ]);
    expect(names(addressedCharacters({ content: 'Hey Bob! Over here.', scene }))).toEqual(['Bob']);
    expect(names(addressedCharacters({ content: 'ねえさくら、元気？', scene }))).toEqual([
      'さくら',
    ]);
  });

  it('does not take a name inside a sentence as an address', () => {
    expect(addressedCharacters({ content: 'I think Alice is nice, really.', scene })).toEqual([]);
    expect(addressedCharacters({ content: 'Alicea, hi', scene })).toEqual([]);
    expect(addressedCharacters({ content: 'Hello there', scene })).toEqual([]);
  });

  it('puts the replied-to character first, then names, then trigger words', () => {
    const addressed = addressedCharacters({
      content: 'Bob, ask the innkeeper',
      scene,
      repliedCharacterId: sakura.id,
    });
    expect(names(addressed)).toEqual(['さくら', 'Bob', 'Alice']);
  });

  it('matches trigger words as literals, so c++ breaks nothing', () => {
    expect(names(addressedCharacters({ content: 'who knows c++ here?', scene }))).toEqual(['Bob']);
    const wild = character('Wild', ['.*']);
    expect(addressedCharacters({ content: 'anything at all', scene: [wild] })).toEqual([]);
  });

  it('ignores characters who are not on stage and a leading mention', () => {
    expect(addressedCharacters({ content: 'Alice, hi', scene: [bob] })).toEqual([]);
    expect(names(addressedCharacters({ content: '<@123> Alice, hi', scene }))).toEqual(['Alice']);
  });

  it('finds who a character’s reply turns to, in any of its sentences', () => {
    expect(names(turnedToIn('Bob, what do you say?', scene))).toEqual(['Bob']);
    expect(names(turnedToIn('A song for you. Alice, your verse!', scene))).toEqual(['Alice']);
    expect(turnedToIn('Welcome to my inn, traveller. Bob is asleep.', scene)).toEqual([]);
  });
});

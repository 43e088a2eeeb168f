/** Who a character's messages are shown as: its name and avatar. */
export interface CharacterVoice {
  /** The character's id (what its messages are remembered under). */
  characterId: string;
  name: string;
  avatarUrl: string | undefined;
}

// Placeholder until the matcher lands.
export const canonicalPhrase = (s: string, caseSensitive: boolean): string => {
  const tidy = s.trim().replace(/\s+/gu, " ");
  return caseSensitive ? tidy : tidy.toLowerCase().normalize("NFD").replace(/[\u0300-\u036f]/g, "");
};

/** The items of a comma-separated setting, trimmed, empty ones dropped (`a, b,,c` -> a, b, c). */
export function commaList(value: string): string[] {
  return value
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
}

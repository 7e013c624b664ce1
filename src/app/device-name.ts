/** A person-readable name for a browser's User-Agent ("Chrome on Linux"), for sessions, alerts and mail. */
export function deviceName(userAgent: string | null | undefined): string {
  if (!userAgent) return 'Unknown device';
  const browser = /(Firefox|Edg|Chrome|Safari)\/[\d.]+/.exec(userAgent)?.[1] ?? 'Browser';
  const system = /(Windows|Mac OS X|Android|iPhone|Linux)/.exec(userAgent)?.[1] ?? '';
  return `${browser === 'Edg' ? 'Edge' : browser}${system ? ` on ${system.replace('Mac OS X', 'macOS')}` : ''}`;
}

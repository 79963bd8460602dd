/** The device class the Choose API understands: from UA Client Hints where present, else the UA. */
export function detectDevice(): 'mobile' | 'desktop' {
  const hints = (navigator as Navigator & { userAgentData?: { mobile?: boolean } }).userAgentData;
  if (typeof hints?.mobile === 'boolean') return hints.mobile ? 'mobile' : 'desktop';
  return /Mobi|Android|iPhone|iPad|iPod/i.test(navigator.userAgent) ? 'mobile' : 'desktop';
}

/** An amount in minor units (cents), as the vendor keeps it, for display: `4200, 'EUR'` → `42.00 EUR`. */
export const formatAmount = (minor: number, currency: string) => `${(minor / 100).toFixed(2)} ${currency}`;

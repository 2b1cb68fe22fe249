/** A wall-clock time as people read it, in their own time zone: `14:03:07.2`. */
export const timeOfDay = (epochMs: number) =>
  new Date(epochMs).toLocaleTimeString(undefined, {
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    fractionalSecondDigits: 1,
  });

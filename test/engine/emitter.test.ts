import { describe, expect, it } from 'vitest';
import { Emitter } from '../../src/engine/emitter';

describe('Emitter', () => {
  it('calls each subscription in order; a function subscribed twice hears twice until each is removed', () => {
    const emitter = new Emitter<number>();
    const heard: string[] = [];
    const a = (value: number) => heard.push(`a${value}`);
    const offFirst = emitter.on(a);
    emitter.on((value) => heard.push(`b${value}`));
    const offSecond = emitter.on(a);
    emitter.emit(1);
    expect(heard).toEqual(['a1', 'b1', 'a1']);
    expect(emitter.size).toBe(3);
    expect(offFirst()).toBe(true);
    expect(offFirst()).toBe(false);
    emitter.emit(2);
    expect(heard.slice(3)).toEqual(['b2', 'a2']);
    offSecond();
    expect(emitter.size).toBe(1);
  });

  it('a listener that throws keeps no other from hearing, and the emit does not throw', () => {
    const emitter = new Emitter<void>();
    let heard = 0;
    emitter.on(() => {
      throw new Error('a broken listener');
    });
    emitter.on(() => void heard++);
    expect(() => emitter.emit()).not.toThrow();
    expect(heard).toBe(1);
  });

  it('who hears an emit is fixed when it starts: one added or removed meanwhile changes the next', () => {
    const emitter = new Emitter<void>();
    const heard: string[] = [];
    let offB = () => false;
    emitter.on(() => {
      heard.push('a');
      offB();
      emitter.on(() => heard.push('c'));
    });
    offB = emitter.on(() => heard.push('b'));
    emitter.emit();
    expect(heard).toEqual(['a', 'b']);
  });
});

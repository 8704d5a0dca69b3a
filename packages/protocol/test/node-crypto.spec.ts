/** onFirstUse loads once, on the first call and not before; nodeCrypto() is node:crypto through it. */
import { nodeCrypto, onFirstUse } from '../src';

describe('onFirstUse', () => {
  it('calls its loader on the first call only, and hands back the same value ever after', () => {
    const load = jest.fn(() => ({ loaded: true }));
    const get = onFirstUse(load);
    expect(load).not.toHaveBeenCalled();
    const first = get();
    expect(get()).toBe(first);
    expect(load).toHaveBeenCalledTimes(1);
  });

  it('remembers a loader that gives undefined, as a module may', () => {
    const load = jest.fn(() => undefined);
    const get = onFirstUse(load);
    get();
    get();
    expect(load).toHaveBeenCalledTimes(1);
  });

  it('nodeCrypto() is node:crypto', () => {
    expect(nodeCrypto()).toBe(require('node:crypto'));
  });
});

/**
 * One devtools model per engine, shared by the panel and by every `useStitchInspector` on that
 * engine, so they show the same lanes. It listens to `engine.inspect` only while something
 * subscribes: an engine nobody watches builds no inspection events.
 */
import { useContext, useEffect, useLayoutEffect } from 'react';
import { defaultEngine, type Engine } from '../index';
import { EngineContext, sharedWeakMap } from '../react/context';
import { checkModel, createDevtoolsModel, type DevtoolsModel, EMPTY } from './model';

/**
 * An engine's shared devtools model. Its first subscriber connects it to `engine.inspect`; once
 * the last one has left it lets go, and its lanes with it. Nobody disposes it.
 */
export interface SharedDevtoolsModel extends Omit<DevtoolsModel, 'dispose'> {
  /** The engine it watches. */
  readonly engine: Engine;
}

/** Where to watch: {@link useDevtoolsModel}'s and `useStitchInspector`'s options. */
export interface InspectorOptions {
  /** The engine to watch. @default the nearest `StitchProvider`'s engine, else `defaultEngine()` */
  engine?: Engine | undefined;
  /** How many request lanes are kept; each value is a model of its own. @default 200 */
  maxLanes?: number | undefined;
}

const models = /* @__PURE__ */ sharedWeakMap<Engine, Record<number, SharedDevtoolsModel>>('devtoolsModels@1');

function connectOnDemand(engine: Engine, maxLanes: number): SharedDevtoolsModel {
  let model: DevtoolsModel | undefined;
  let users = 0;
  return {
    engine,
    subscribe(listener) {
      model ??= createDevtoolsModel(engine, { maxLanes });
      users++;
      const stop = model.subscribe(listener);
      let subscribed = true;
      return () => {
        // Idempotent: a second call must not count this subscriber out twice.
        if (!subscribed) return;
        subscribed = false;
        stop();
        users--;
        // Let go a microtask later: an unmount and a mount in one commit (a remount, StrictMode's
        // second effect run) keep the model and its lanes.
        queueMicrotask(() => {
          if (users > 0) return;
          model?.dispose();
          model = undefined;
        });
      };
    },
    getSnapshot: () => model?.getSnapshot() ?? EMPTY,
    clearLanes: () => model?.clearLanes(),
  };
}

/** The shared model of `engine` for `maxLanes`, created (unconnected) on first use. */
export function sharedModel(engine: Engine, maxLanes?: number): SharedDevtoolsModel {
  const cap = checkModel(engine, maxLanes);
  const byCap = models.get(engine) ?? {};
  models.set(engine, byCap);
  byCap[cap] ??= connectOnDemand(engine, cap);
  return byCap[cap];
}

/**
 * The devtools model `<StitchDevtools />` shows for this engine: the same lanes, cache, breakers and
 * queues, kept up to date by `engine.inspect` while anything subscribes to it.
 * Calling this hook subscribes to nothing; use its `subscribe`/`getSnapshot` with
 * `useSyncExternalStore`, or read a part of it with `useStitchInspector`. Its `clearLanes()`
 * clears the panel's lanes too.
 * @throws StitchError of kind `'config'` for an `engine` that is not one or a bad `maxLanes`.
 */
export function useDevtoolsModel({ engine, maxLanes }: InspectorOptions = {}): SharedDevtoolsModel {
  const provided = useContext(EngineContext);
  return sharedModel(engine ?? provided ?? defaultEngine(), maxLanes);
}

/**
 * Keeps `model` connected from the commit that mounts the caller on: in a layout effect, which
 * React runs before every passive effect of that commit, so a request a component sends from its
 * effect in the same commit (a `useStitch` placed before the panel, say) is watched from its
 * start. On a server, where a layout effect does nothing, a plain effect (that never runs).
 */
export function useWatching(model: SharedDevtoolsModel): void {
  useCommitEffect(() => model.subscribe(() => {}), [model]);
}

const useCommitEffect = typeof document === 'undefined' ? useEffect : useLayoutEffect;

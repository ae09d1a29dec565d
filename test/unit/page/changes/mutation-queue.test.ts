// @vitest-environment happy-dom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { BIG_FRAME_RECORDS, MAX_OWED_RECORDS, MutationQueue, OWED_SLICE_MS, TAIL_REREAD_MS, type MutationBatch } from '@/lib/page/changes/mutation-queue';

/**
 * An observer fed by hand with records shaped as the DOM standard queues them: one record for
 * a whole `replaceChildren` or fragment insert (happy-dom queues one per node).
 */
function fakeObserver() {
  let deliver: MutationCallback = () => {};
  const observer = {
    observe() {},
    disconnect() {},
    takeRecords: (): MutationRecord[] => [],
  };
  return {
    create: (callback: MutationCallback) => ((deliver = callback), observer),
    /** Delivers one childList record; counts how many of its added nodes are read. */
    childList(target: Node, added: Node[], removed: Node[] = []) {
      const reads = { count: 0 };
      const addedNodes = new Proxy(added, {
        get(list, key, receiver) {
          if (typeof key === 'string' && /^\d+$/.test(key)) reads.count++;
          if (key === Symbol.iterator) reads.count += list.length;
          return Reflect.get(list, key, receiver) as unknown;
        },
      });
      const record = { type: 'childList', target, addedNodes, removedNodes: removed } as unknown as MutationRecord;
      deliver([record], observer as unknown as MutationObserver);
      return reads;
    },
  };
}

/**
 * A real (happy-dom) observer that also lists what it observes with which options; records of
 * `storm` are left out of what it delivers (happy-dom queues one per node of a rebuild), and
 * the test delivers each rebuild as one record by hand, as the DOM standard queues it.
 */
function listingObserver(storm: Node) {
  let deliver: MutationCallback = () => {};
  let real: MutationObserver;
  const observed = new Map<Node, MutationObserverInit>();
  const mine = (records: MutationRecord[]) => records.filter((r) => r.target !== storm);
  const observer = {
    observe(node: Node, options: MutationObserverInit) {
      observed.set(node, options);
      real.observe(node, options);
    },
    disconnect() {
      observed.clear();
      real.disconnect();
    },
    takeRecords: () => mine(real.takeRecords()),
  };
  return {
    observed,
    create: (callback: MutationCallback) => {
      deliver = callback;
      real = new MutationObserver((records) => {
        const kept = mine(records);
        if (kept.length) callback(kept, observer as unknown as MutationObserver);
      });
      return observer;
    },
    rebuild(rows: number) {
      const old = [...storm.childNodes];
      const added = Array.from({ length: rows }, () => document.createElement('div'));
      (storm as Element).replaceChildren(...added);
      deliver([{ type: 'childList', target: storm, addedNodes: added, removedNodes: old } as unknown as MutationRecord], observer as unknown as MutationObserver);
    },
  };
}

describe('mutation queue', () => {
  afterEach(() => {
    document.body.replaceChildren();
  });

  it('only queues in the observer callback and hands over one batch per flush', async () => {
    const batches: MutationBatch[] = [];
    const scheduled: (() => void)[] = [];
    const queue = new MutationQueue((b) => batches.push(b), (f) => scheduled.push(f));
    queue.observe(document.body);
    const list = document.createElement('ul');
    document.body.append(list);
    const a = document.createElement('li');
    a.textContent = 'one';
    list.append(a);
    const b = document.createElement('li');
    b.textContent = 'two';
    list.append(b);
    (a.firstChild as Text).data = 'changed';
    b.remove();
    await Promise.resolve();
    await new Promise((r) => setTimeout(r, 0));
    // Many records, one scheduled flush, no batch yet.
    expect(scheduled).toHaveLength(1);
    expect(batches).toEqual([]);
    scheduled[0]!();
    expect(batches).toHaveLength(1);
    const batch = batches[0]!;
    // Added nodes still in the page, and the changed text node; the removed <li> is left out.
    expect(batch.touched).toEqual([list, a, a.firstChild]);
    expect(batch.removed).toBe(true);
    // The record's own list of removed nodes, for the store's sweep under them.
    expect(batch.removedNodes.flatMap((list) => [...list])).toEqual([b]);
    queue.disconnect();
  });

  it('hands over a changed text only when it matters (may hold an address, or held one)', async () => {
    const batches: MutationBatch[] = [];
    const asked: string[] = [];
    const queue = new MutationQueue((b) => batches.push(b), () => {}, {
      textMatters: (text) => (asked.push(text.data), text.data.includes('.')),
    });
    const age = document.createElement('td');
    age.textContent = '5s ago';
    const ip = document.createElement('td');
    ip.textContent = '10.0.0.1';
    document.body.append(age, ip);
    queue.observe(document.body);
    (age.firstChild as Text).data = '6s ago';
    (ip.firstChild as Text).data = '10.0.0.2';
    await new Promise((r) => setTimeout(r, 0));
    queue.flush();
    expect(asked).toEqual(['6s ago', '10.0.0.2']);
    expect(batches.map((b) => b.touched)).toEqual([[ip.firstChild]]);
    queue.disconnect();
  });

  it('flushes on demand and stops after disconnect', async () => {
    const batches: MutationBatch[] = [];
    const queue = new MutationQueue((b) => batches.push(b), () => {});
    queue.observe(document.body);
    document.body.append('1.2.3.4');
    queue.flush();
    expect(batches.map((b) => b.touched.length)).toEqual([1]);
    queue.disconnect();
    document.body.append('5.6.7.8');
    await new Promise((r) => setTimeout(r, 0));
    queue.flush();
    expect(batches).toHaveLength(1);
  });
  it('hands over the parent, not each node, when a record replaces its children', () => {
    const batches: MutationBatch[] = [];
    const fake = fakeObserver();
    const queue = new MutationQueue((b) => batches.push(b), () => {}, { createObserver: fake.create });
    const storm = document.createElement('div');
    const old = document.createElement('p');
    document.body.append(storm);
    // Fewer than a rebuild that may storm (1,000: read 250 ms later, see below).
    const rows = Array.from({ length: 999 }, () => document.createElement('div'));
    for (const row of rows) storm.appendChild(row);
    // What `storm.replaceChildren(...rows)` queues: one record.
    const reads = fake.childList(storm, rows, [old]);
    queue.flush();
    // One root for the scanner's sliced walk, not 999 roots read in the page's frame.
    expect(batches).toEqual([{ touched: [storm], removed: true, removedNodes: [[old]] }]);
    expect(reads.count).toBe(0);
    // A few rows appended to a long list are still handed over one by one.
    const more = [document.createElement('div'), document.createElement('div')];
    storm.append(...more);
    fake.childList(storm, more);
    queue.flush();
    expect(batches[1]).toEqual({ touched: more, removed: false, removedNodes: [] });
    queue.disconnect();
  });

  it('reads a big rebuild 250 ms later if no other came; rebuilt frame after frame (the storm), once it goes quiet', () => {
    const batches: MutationBatch[] = [];
    const fake = fakeObserver();
    let clock = 0;
    const timers: { run: () => void; at: number }[] = [];
    const queue = new MutationQueue((b) => batches.push(b), () => {}, {
      createObserver: fake.create,
      now: () => clock,
      setTimer: (run, ms) => timers.push({ run, at: clock + ms }),
    });
    const storm = document.createElement('div');
    document.body.append(storm);
    const rebuild = () => {
      const old = [...storm.childNodes];
      // At least the 1,000 nodes that make a rebuild count (the storm fixture's: 5,000).
      const rows = Array.from({ length: 1_000 }, () => document.createElement('div'));
      storm.replaceChildren(...rows);
      fake.childList(storm, rows, old);
      queue.flush();
      return old;
    };
    const runTimers = () => {
      for (const t of timers.splice(0)) {
        clock = Math.max(clock, t.at);
        t.run();
      }
    };
    // Nothing in the flushes (the page's frames): neither the rows of the first rebuild or of
    // those that follow within a frame or a few, nor what they removed.
    rebuild();
    for (let frame = 1; frame <= 5; frame++) {
      clock += 16;
      rebuild();
    }
    expect(batches).toEqual([]);
    // A slow frame (a loaded machine) does not end the storm, and the first rebuild's wait for
    // another (250 ms) hands nothing over: another came.
    clock += 300;
    rebuild();
    runTimers();
    // What the rebuilds removed is swept in a task of ours (the store sweeps all it holds).
    expect(batches).toEqual([{ touched: [], removed: true, removedNodes: [], removalsUnseen: true }]);
    // Quiet for the watch's wait: the container is handed over once, with what it shows now.
    runTimers();
    // Its removals were not observed while it stormed: the batch says so (the store sweeps all).
    expect(batches.at(-1)).toEqual({ touched: [storm], removed: true, removedNodes: [], removalsUnseen: true });
    runTimers();
    expect(batches).toHaveLength(2);
    // A console re-rendering a big table a few times a second is never held back: each render
    // is handed over with what it removed 250 ms after it came, by the watch's timer.
    clock += 1_000;
    for (let i = 0; i < 3; i++) {
      clock += 400;
      const old = rebuild();
      expect(batches).toHaveLength(2 + i);
      runTimers();
      expect(batches.at(-1)).toEqual({ touched: [storm], removed: true, removedNodes: [old] });
    }
    queue.disconnect();
  });

  describe('while a container storms', () => {
    /** body > [h1, section > [#storm, p]]; the queue observes the document, its flushes run by hand. */
    async function stormingPage() {
      document.body.innerHTML = '<h1>Title</h1><section><div id="storm"></div><p>1.2.3.4</p></section>';
      const storm = document.getElementById('storm')!;
      const fake = listingObserver(storm);
      const batches: MutationBatch[] = [];
      const frames: (() => void)[] = [];
      let clock = 0;
      const timers: { run: () => void; at: number }[] = [];
      const queue = new MutationQueue((b) => batches.push(b), (f) => frames.push(f), {
        createObserver: fake.create,
        now: () => clock,
        setTimer: (run, ms) => timers.push({ run, at: clock + ms }),
      });
      queue.observe(document);
      /** One storm frame: a rebuild, then the queue's flush. */
      const frame = async () => {
        clock += 16;
        fake.rebuild(1_000);
        await Promise.resolve();
        while (frames.length) frames.shift()!();
      };
      /** Tasks of ours due now (0 ms timers: the flush while a container storms). */
      const tasks = () => {
        for (const t of timers.filter((t) => t.at <= clock)) {
          timers.splice(timers.indexOf(t), 1);
          t.run();
        }
      };
      /** The page left alone until the storm watch's timers have run. */
      const quiet = () => {
        while (timers.length) {
          const t = timers.shift()!;
          clock = Math.max(clock, t.at);
          t.run();
        }
      };
      const touched = () => batches.flatMap((b) => b.touched);
      for (let i = 0; i < 3; i++) await frame();
      return { storm, fake, queue, batches, frame, tasks, quiet, touched, section: document.querySelector('section')!, p: document.querySelector('p')! };
    }

    it('observes around the container, not under it, and the document as before once it is quiet', async () => {
      const { storm, fake, queue, quiet, section, p } = await stormingPage();
      expect(fake.observed.has(storm)).toBe(false);
      for (const ancestor of [section, document.body, document.documentElement, document]) expect(fake.observed.get(ancestor)).toEqual({ childList: true });
      expect(fake.observed.get(p)).toEqual({ childList: true, subtree: true, characterData: true });
      expect([...fake.observed].some(([node, options]) => options.subtree && node.contains(storm))).toBe(false);
      quiet();
      expect([...fake.observed]).toEqual([[document, { childList: true, subtree: true, characterData: true }]]);
      queue.disconnect();
    });

    it('still sees a change elsewhere on the page, in a task of ours, also one made just before each switch', async () => {
      const { queue, frame, tasks, quiet, touched, p } = await stormingPage();
      const text = p.firstChild as Text;
      text.data = '5.6.7.8';
      await frame();
      // Read in a task of ours, not in the page's frame (each one full of its rebuild).
      expect(touched()).not.toContain(text);
      tasks();
      expect(touched()).toContain(text);
      // Made before the storm ends, still pending when the observer is switched back.
      text.data = '9.9.9.9';
      const before = touched().length;
      quiet();
      queue.flush();
      expect(touched().slice(before)).toContain(text);
      queue.disconnect();
    });

    it('holds the roots it observes weakly: one the page dropped is not observed again at a switch', async () => {
      // A WeakRef whose target the test lets go of ("collected"): happy-dom's GC is not ours to run.
      const collected = new WeakSet<object>();
      vi.stubGlobal(
        'WeakRef',
        class<T extends object> {
          constructor(private readonly target: T) {}
          deref(): T | undefined {
            return collected.has(this.target) ? undefined : this.target;
          }
        },
      );
      try {
        const { fake, queue, quiet } = await stormingPage();
        const [kept, dropped] = [0, 1].map(() => document.body.appendChild(document.createElement('div')).attachShadow({ mode: 'open' }));
        queue.observe(kept!);
        queue.observe(dropped!);
        collected.add(dropped!);
        quiet();
        expect([...fake.observed.keys()]).toEqual([document, kept]);
        queue.disconnect();
      } finally {
        vi.unstubAllGlobals();
      }
    });

    it('observes a sibling added next to the container during the storm', async () => {
      const { storm, fake, queue, frame, tasks, touched, section } = await stormingPage();
      const sibling = document.createElement('div');
      section.insertBefore(sibling, storm);
      await frame();
      tasks();
      expect(touched()).toContain(sibling);
      expect(fake.observed.get(sibling)).toEqual({ childList: true, subtree: true, characterData: true });
      // What the page then writes into it is seen.
      const row = sibling.appendChild(document.createElement('span'));
      await frame();
      tasks();
      expect(touched()).toContain(row);
      queue.disconnect();
    });
  });

  it('never holds back a small rebuild (a virtualised grid re-rendering its rows on every scroll frame)', () => {
    const batches: MutationBatch[] = [];
    const fake = fakeObserver();
    let clock = 0;
    const queue = new MutationQueue((b) => batches.push(b), () => {}, { createObserver: fake.create, now: () => clock, setTimer: () => {} });
    const grid = document.createElement('div');
    document.body.append(grid);
    for (let frame = 0; frame < 10; frame++) {
      clock += 16;
      const rows = Array.from({ length: 60 }, () => document.createElement('div'));
      grid.replaceChildren(...rows);
      fake.childList(grid, rows);
      queue.flush();
    }
    expect(batches.every((b) => b.touched.length === 1 && b.touched[0] === grid)).toBe(true);
    expect(batches).toHaveLength(10);
    queue.disconnect();
  });

  it('reads records for a bounded time per scheduled flush and carries the rest over', async () => {
    const batches: MutationBatch[] = [];
    const scheduled: (() => void)[] = [];
    // Each look at the clock is 0.1 ms later: a 1 ms budget reads about 10 × 64 records.
    let clock = 0;
    const queue = new MutationQueue((b) => batches.push(b), (f) => scheduled.push(f), { budgetMs: 1, now: () => (clock += 0.1) });
    const list = document.createElement('div');
    document.body.append(list);
    queue.observe(document.body);
    // 5,000 records of one added node each (a page appending rows one call at a time).
    const total = 5_000;
    for (let i = 0; i < total; i++) list.appendChild(document.createElement('span'));
    await Promise.resolve();
    expect(scheduled).toHaveLength(1);
    scheduled.shift()!();
    // The first flush stopped well short of the backlog and asked for another.
    expect(batches).toHaveLength(1);
    expect(batches[0]!.touched.length).toBeGreaterThan(0);
    expect(batches[0]!.touched.length).toBeLessThanOrEqual(64 * 11);
    expect(queue.pending).toBe(total - batches[0]!.touched.length);
    expect(scheduled).toHaveLength(1);
    // Later flushes read the rest, in order, each node once.
    while (scheduled.length) scheduled.shift()!();
    const all = batches.flatMap((b) => b.touched);
    expect(all).toEqual([...list.children]);
    expect(batches.length).toBeGreaterThan(5);
    expect(queue.pending).toBe(0);
    queue.disconnect();
  });

  it('stops inside one record that adds many nodes to a longer list, and resumes there', () => {
    const batches: MutationBatch[] = [];
    const scheduled: (() => void)[] = [];
    let clock = 0;
    const fake = fakeObserver();
    const queue = new MutationQueue((b) => batches.push(b), (f) => scheduled.push(f), { budgetMs: 1, now: () => (clock += 0.1), createObserver: fake.create });
    const list = document.createElement('div');
    for (let i = 0; i < 3_000; i++) list.appendChild(document.createElement('i'));
    document.body.append(list);
    // 1,000 rows added at once to a list of 3,000: not "most of its children", read one by one.
    const rows = Array.from({ length: 1_000 }, () => document.createElement('b'));
    for (const row of rows) list.appendChild(row);
    const reads = fake.childList(list, rows);
    scheduled.shift()!();
    expect(batches[0]!.touched.length).toBeLessThanOrEqual(64 * 11);
    expect(reads.count).toBeLessThanOrEqual(64 * 11);
    expect(scheduled).toHaveLength(1);
    while (scheduled.length) scheduled.shift()!();
    expect(batches.flatMap((b) => b.touched)).toEqual(rows);
    queue.disconnect();
  });

  // A live tail's re-render brings 20,000 records in one frame; reading
  // them in that frame put the new top row's mark after the frame that paints its text.
  describe('a frame with thousands of records', () => {
    /** A list of `n` spans whose text changes, one record each (a re-render, in records). */
    function bigFrame(n: number) {
      const list = document.createElement('div');
      for (let i = 0; i < n; i++) list.appendChild(document.createElement('span')).textContent = `old ${i}`;
      document.body.append(list);
      return { list, render: (tag: string) => [...list.children].forEach((s, i) => ((s.firstChild as Text).data = `${tag} ${i}`)) };
    }

    /** The page renders, its records are delivered, and the next animation frame runs. */
    async function renderAndFrame(q: { frames: (() => void)[] }, render: (text: string) => void, text: string): Promise<void> {
      render(text);
      await Promise.resolve();
      q.frames.shift()!();
    }

    function setupQueue(now?: () => number) {
      const batches: MutationBatch[] = [];
      const frames: (() => void)[] = [];
      const afterPaint: (() => void)[] = [];
      let bigFrames = 0;
      const queue = new MutationQueue((b) => batches.push(b), (f) => frames.push(f), {
        onBigFrame: () => bigFrames++,
        afterPaint: (t) => afterPaint.push(t),
        // A clock that stands still unless a test moves it: with the real one, a loaded machine
        // made one task's read pass OWED_SLICE_MS and split it (a flaky 'owed too').
        now: now ?? (() => 0),
      });
      queue.observe(document.body);
      const texts = () => batches.flatMap((b) => b.touched).map((n) => n.textContent);
      return { queue, batches, frames, afterPaint, texts, bigFrames: () => bigFrames };
    }

    it('are not read in the frame: the caller is told, and a task after the paint reads them once', async () => {
      const { list, render } = bigFrame(BIG_FRAME_RECORDS);
      const q = setupQueue();
      await renderAndFrame(q, render, 'new');
      expect(q.bigFrames()).toBe(1);
      expect(q.batches).toEqual([]);
      expect(q.queue.pending).toBe(BIG_FRAME_RECORDS);
      expect(q.afterPaint).toHaveLength(1);
      q.afterPaint.shift()!();
      expect(q.texts()).toEqual([...list.children].map((s) => s.textContent));
      expect(q.queue.pending).toBe(0);
      expect(q.frames).toEqual([]);
      q.queue.disconnect();
    });

    // On a busy page the tasks after the paint fall behind a live tail; reading what
    // they still owed in the next render's frame put 30-40 ms of ours into the page's longest task.
    it('a big frame before that task is owed too, both read by the tasks after the paint', async () => {
      const { list, render } = bigFrame(BIG_FRAME_RECORDS);
      const q = setupQueue();
      await renderAndFrame(q, render, 'first');
      await renderAndFrame(q, render, 'second');
      expect(q.bigFrames()).toBe(2);
      expect(q.batches).toEqual([]);
      expect(q.queue.pending).toBe(2 * BIG_FRAME_RECORDS);
      // One task posted for both frames.
      expect(q.afterPaint).toHaveLength(1);
      q.afterPaint.shift()!();
      const read = q.texts();
      expect(read).toHaveLength(list.children.length);
      expect(read.every((t) => t!.startsWith('second'))).toBe(true);
      expect(q.queue.pending).toBe(0);
      q.queue.disconnect();
    });

    it('past MAX_OWED_RECORDS, a big frame reads what is owed first', async () => {
      const { list, render } = bigFrame(MAX_OWED_RECORDS / 2 + 1);
      const q = setupQueue();
      await renderAndFrame(q, render, 'first');
      await renderAndFrame(q, render, 'second');
      expect(q.bigFrames()).toBe(2);
      expect(q.texts()).toHaveLength(list.children.length);
      expect(q.queue.pending).toBe(list.children.length);
      q.queue.disconnect();
    });

    // Read in one task, the live tail's 20,000 records and their batch were
    // a long task of ours (50-90 ms at load ~10) after every render.
    it('are read a slice a task: each task reads for OWED_SLICE_MS and posts another for the rest', async () => {
      const { list, render } = bigFrame(4 * BIG_FRAME_RECORDS);
      // A tenth of the slice passes between two looks at the clock (one every 64 records).
      let clock = 0;
      const q = setupQueue(() => (clock += OWED_SLICE_MS / 10));
      await renderAndFrame(q, render, 'new');
      let tasks = 0;
      while (q.afterPaint.length) {
        q.afterPaint.shift()!();
        tasks++;
        expect(q.batches).toHaveLength(tasks);
        expect(q.batches.at(-1)!.touched.length).toBeLessThanOrEqual(64 * 11);
      }
      expect(tasks).toBeGreaterThan(1);
      expect(new Set(q.texts()).size).toBe(list.children.length);
      expect(q.queue.pending).toBe(0);
      q.queue.disconnect();
    });

    it('a small frame while records are owed reads its own records only; the owed ones wait for their tasks', async () => {
      const { render } = bigFrame(BIG_FRAME_RECORDS);
      const q = setupQueue();
      await renderAndFrame(q, render, 'first');
      const clock = document.body.appendChild(document.createElement('p'));
      clock.textContent = '12:00';
      await Promise.resolve();
      q.frames.shift()!();
      // The paragraph and its text: nothing of the render's.
      expect(q.texts()).toEqual(['12:00', '12:00']);
      expect(q.queue.pending).toBe(BIG_FRAME_RECORDS);
      q.afterPaint.shift()!();
      expect(q.queue.pending).toBe(0);
      q.queue.disconnect();
    });

    it('the task reads only the big frame’s records; a later render waits for its own frame', async () => {
      const { list, render } = bigFrame(BIG_FRAME_RECORDS);
      const q = setupQueue();
      await renderAndFrame(q, render, 'first');
      render('second');
      await Promise.resolve();
      // The task runs before the second render's frame: the first render's records only.
      q.afterPaint.shift()!();
      expect(q.batches).toHaveLength(1);
      expect(q.queue.pending).toBe(BIG_FRAME_RECORDS);
      // The second render's frame is a big frame of its own.
      q.frames.shift()!();
      expect(q.bigFrames()).toBe(2);
      q.afterPaint.shift()!();
      expect(q.queue.pending).toBe(0);
      expect(q.batches.map((b) => b.touched.length)).toEqual([list.children.length, list.children.length]);
      q.queue.disconnect();
    });

    it('smaller frames are read in the frame, as before', async () => {
      const { render } = bigFrame(BIG_FRAME_RECORDS - 1);
      const q = setupQueue();
      await renderAndFrame(q, render, 'new');
      expect(q.bigFrames()).toBe(0);
      expect(q.texts()).toHaveLength(BIG_FRAME_RECORDS - 1);
      expect(q.afterPaint).toEqual([]);
      q.queue.disconnect();
    });
  });

  // live12: a subtree observer over a live tail made Blink build the render's 20,000
  // records inside the page's render task (its CPU 28 ms alone, 48-52 ms observed).
  describe('a list re-rendered again and again (a tail)', () => {
    /** A list of 1,000 rows whose text is all set anew by each render; rows 500-504 on screen. */
    async function tailPage() {
      const list = document.body.appendChild(document.createElement('ol'));
      for (let i = 0; i < BIG_FRAME_RECORDS; i++) list.appendChild(document.createElement('li')).textContent = `old ${i}`;
      const rows = [...list.children];
      const aside = document.body.appendChild(document.createElement('aside'));
      const fake = listingObserver(document.createElement('div'));
      const batches: MutationBatch[] = [];
      const frames: (() => void)[] = [];
      const afterPaint: (() => void)[] = [];
      let clock = 0;
      const timers: { run: () => void; at: number }[] = [];
      let screen = rows.slice(500, 505);
      const queue = new MutationQueue((b) => batches.push(b), (f) => frames.push(f), {
        createObserver: fake.create,
        now: () => clock,
        setTimer: (run, ms) => timers.push({ run, at: clock + ms }),
        onBigFrame: () => {},
        afterPaint: (t) => afterPaint.push(t),
        screenRows: () => screen,
      });
      queue.observe(document);
      /** A second later, the page renders every row: its records are delivered, its frame and the tasks after it run. */
      const render = async (tag: string) => {
        clock += 1_000;
        rows.forEach((row, i) => ((row.firstChild as Text).data = `${tag} ${i}`));
        // A counter beside the list, as live-rerender.html updates after each render.
        aside.textContent = `Renders: ${tag}`;
        await Promise.resolve();
        while (frames.length) frames.shift()!();
        while (afterPaint.length) afterPaint.shift()!();
      };
      /** Our timers due by `ms` from now. */
      const wait = (ms: number) => {
        const until = clock + ms;
        for (let t; (t = timers.filter((t) => t.at <= until).sort((a, b) => a.at - b.at)[0]); ) {
          timers.splice(timers.indexOf(t), 1);
          clock = t.at;
          t.run();
        }
        clock = until;
      };
      const touched = () => batches.flatMap((b) => b.touched);
      return { list, rows, aside, fake, queue, batches, render, wait, touched, moveTo: (r: Element[]) => (screen = r) };
    }

    it('after two big frames under it, is observed by its window: the rows near the screen, the list childList only', async () => {
      const { list, rows, aside, fake, queue, render } = await tailPage();
      await render('first');
      expect(fake.observed.get(document)).toEqual({ childList: true, subtree: true, characterData: true });
      await render('second');
      expect(fake.observed.has(document)).toBe(true);
      expect(fake.observed.get(list)).toEqual({ childList: true });
      expect(fake.observed.get(aside)).toEqual({ childList: true, subtree: true, characterData: true });
      const windowed = rows.filter((row) => fake.observed.get(row)?.subtree);
      expect(windowed).toEqual(rows.slice(479, 530));
      expect([...fake.observed].some(([node, options]) => options.subtree && node.contains(list))).toBe(false);
      queue.disconnect();
    });

    it('reads text changes in its window rows in the frame; the rest every TAIL_REREAD_MS, the list handed over whole', async () => {
      const { list, rows, queue, batches, render, wait, touched } = await tailPage();
      await render('first');
      await render('second');
      const before = batches.length;
      await render('third');
      const read = batches.slice(before).flatMap((b) => b.touched);
      expect(read).toContain(rows[500]!.firstChild);
      expect(read).toContain(rows[480]!.firstChild);
      expect(read).toContain(rows[525]!.firstChild);
      expect(read).not.toContain(rows[0]!.firstChild);
      expect(read.filter((n) => list.contains(n))).toHaveLength(51);
      // The rows out of the window, read again in the background, with a sweep of all held.
      wait(TAIL_REREAD_MS);
      expect(batches.at(-1)).toEqual({ touched: [list], removed: true, removedNodes: [], removalsUnseen: true, reread: true });
      expect(touched().filter((n) => n === list)).toHaveLength(1);
      queue.disconnect();
    });

    it('its window follows the screen: rows new to it are read and observed, rows left behind no longer', async () => {
      const { rows, fake, queue, batches, render, moveTo } = await tailPage();
      await render('first');
      await render('second');
      moveTo(rows.slice(700, 705));
      const before = batches.length;
      queue.moveWindow();
      expect(fake.observed.get(rows[700]!)).toEqual({ childList: true, subtree: true, characterData: true });
      expect(fake.observed.has(rows[500]!)).toBe(false);
      expect(batches.slice(before).flatMap((b) => b.touched)).toEqual(rows.slice(679, 730));
      // Unmoved: nothing read, nothing observed again.
      queue.moveWindow();
      expect(batches.length).toBe(before + 1);
      queue.disconnect();
    });

    // A keyed list (hostile/live-tail.html) inserts new events at its top and keeps its rows:
    // the rows on screen are then others than at the last sample, and the page may not scroll.
    it('rows the page adds to it move its window: a new event at the top of the screen is observed', async () => {
      const { list, rows, fake, queue, render, moveTo } = await tailPage();
      await render('first');
      await render('second');
      const event = document.createElement('li');
      event.textContent = 'new event';
      list.prepend(event);
      moveTo([event, ...rows.slice(0, 4)]);
      await render('third');
      expect(fake.observed.get(event)).toEqual({ childList: true, subtree: true, characterData: true });
      expect(fake.observed.has(rows[500]!)).toBe(false);
      queue.disconnect();
    });

    it('once its window saw no change for TAIL_REREAD_MS, is observed as before, and read whole once more', async () => {
      const { list, fake, queue, batches, render, wait } = await tailPage();
      await render('first');
      await render('second');
      await render('third');
      wait(TAIL_REREAD_MS);
      expect(fake.observed.get(list)).toEqual({ childList: true });
      // The page stopped re-rendering.
      wait(TAIL_REREAD_MS);
      expect([...fake.observed]).toEqual([[document, { childList: true, subtree: true, characterData: true }]]);
      expect(batches.at(-1)).toMatchObject({ touched: [list], reread: true });
      queue.disconnect();
    });
  });
});

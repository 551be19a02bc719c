"""Training the neural scorer: :func:`train_neural` with its :class:`NeuralTrainConfig`
(:func:`plgraph.parser.training.pipeline.train` with ``TrainConfig(scorer="neural")``
comes here through :func:`train_scorer`).

The run reads the train and dev splits (sentences of at most ``max_words`` words; a
sentence that cannot be read or has no target is counted and skipped), builds the edge
labels and rules of the train split (as the linear parser does), the vocabularies and
the POS tagger (``tagger.json``: predicted tags at parse time), then trains the
network on the local losses (:meth:`plgraph.parser.scoring.neural.network.GraphScorer.loss`) with Adam
(Dozat & Manning's betas 0.9/0.9, learning rate decayed by 0.75 every 5,000 steps as in
SuPar, gradients clipped to norm 5), batches of about ``batch_words`` words.

After every epoch the dev split is scored locally (:func:`local_scores`: unlabelled and
labelled head accuracy, spine accuracy, trace-edge F1 at logit 0); the epoch with the
best ``dev_score`` (their mean) is kept in ``neural.npz``, and training stops after
``patience`` epochs without a better one, after ``epochs``, or after ``max_minutes``.
A checkpoint of the last epoch (parameters, Adam's state, random generators) lets
``resume`` continue; Ctrl-C stops at the next batch with the files of the last finished
epoch (:mod:`plgraph.signals`).  With a seed the run is deterministic on CPU
with the same number of ``threads``.

After training the decoding options are tuned on dev (:func:`plgraph.parser.scoring.neural.tune.tune_decode`)
unless ``tune`` is off.
"""
from __future__ import annotations

import os
import shutil
import time
from dataclasses import asdict, replace
from typing import Callable, Mapping

import numpy as np

from ....errors import InputError, ModelFileError, OutputError, PlgraphError
from ....signals import check_interrupt, deferred_interrupts
from ...training.pipeline import to_stderr
from .config import NetworkConfig, NeuralTrainConfig

#: the options of a run that a resumed run must not change
_FIXED = ("max_words", "limit", "seed", "batch_words", "lr", "embeddings", "network")


class TrainingDiverged(PlgraphError):
    """A loss, a gradient or the weights stopped being finite numbers: training stops,
    and the folder keeps what the last finished epoch wrote."""


def neural_config(config) -> NeuralTrainConfig:
    """The :class:`NeuralTrainConfig` of a :class:`~plgraph.parser.training.pipeline.TrainConfig`
    of the neural scorer: into ``M/neural`` (:func:`~plgraph.parser.scoring.neural.folder.neural_dir`),
    its shared fields (``max_words`` and ``seed`` None: this config's defaults) and the
    options of ``config.neural``."""
    from .folder import neural_dir

    opts = dict(config.neural)
    if isinstance(opts.get("network"), Mapping):
        opts["network"] = NetworkConfig(**opts["network"])
    shared = {k: getattr(config, k) for k in ("max_words", "limit", "seed") if getattr(config, k) is not None}
    return NeuralTrainConfig(model_dir=neural_dir(config.model_dir), ptb=config.ptb, threads=config.threads,
                             resume=config.resume, overwrite=config.overwrite, progress=config.progress,
                             **shared, **opts)


def train_scorer(config, *, log: Callable[[str], None] = print, warn: Callable[[str], None] = to_stderr) -> dict:
    """Train the neural scorer of a :class:`~plgraph.parser.training.pipeline.TrainConfig`
    (``scorer="neural"``; :func:`~plgraph.parser.training.pipeline.train` calls it):
    :func:`train_neural` of :func:`neural_config`; the folder's final header."""
    return train_neural(neural_config(config), log=log, warn=warn)


def _data(config: NeuralTrainConfig, warn):
    from ...training.pipeline import read_split, short_graphs

    train, bad_tr = read_split("train", config.ptb, config.progress, warn, prog="plgraph neural")
    dev, bad_dv = read_split("dev", config.ptb, config.progress, warn, prog="plgraph neural")
    tr, long_tr = short_graphs([s.graph for s in train], config.max_words)
    dv, long_dv = short_graphs([s.graph for s in dev], config.max_words)
    if config.limit:
        tr = tr[:config.limit]
    return train, tr, dv, {"unreadable": bad_tr + bad_dv, "too_long_train": long_tr, "too_long_dev": long_dv}


def _targets(graphs, vocab, maps, spine_index, what: str, warn) -> list:
    from .data import targets

    out = []
    for g in graphs:
        try:
            out.append(targets(g, vocab, maps, spine_index))
        except ValueError as err:
            warn(f"plgraph neural: {what}: skipped {err}")
    return out


def _optimizer_arrays(opt) -> tuple[dict, list]:
    arrays, steps = {}, []
    for i, group in enumerate(opt.param_groups[0]["params"]):
        st = opt.state.get(group, {})
        if st:
            arrays[f"opt.{i}.exp_avg"] = st["exp_avg"].numpy()
            arrays[f"opt.{i}.exp_avg_sq"] = st["exp_avg_sq"].numpy()
            steps.append(float(st["step"]))
        else:
            steps.append(None)
    return arrays, steps


def _restore_optimizer(opt, arrays: dict, steps: list) -> None:
    import torch

    for i, p in enumerate(opt.param_groups[0]["params"]):
        if steps[i] is None:
            continue
        opt.state[p] = {"step": torch.tensor(steps[i]), "exp_avg": torch.from_numpy(arrays[f"opt.{i}.exp_avg"]),
                        "exp_avg_sq": torch.from_numpy(arrays[f"opt.{i}.exp_avg_sq"])}


def local_scores(net, sents, vocabs, batch_words: int = 2000, pretrained_index=None) -> dict:
    """Dev scores of the network's local decisions on ``sents`` (Targets), in %:
    ``uas`` / ``las`` (argmax head, and its argmax label), ``spine`` (argmax spine),
    ``trace_p`` / ``trace_r`` / ``trace_f`` (pairs with a positive trace logit,
    unlabelled), ``tag`` (argmax tag; only for a network with ``predict_tags``) and
    ``dev_score`` (the mean of las, spine and trace_f)."""
    import torch

    from .batches import batch_order, gold_batch, make_batch

    net.eval()
    c = {"words": 0, "heads": 0, "las": 0, "spine": 0, "tp": 0, "pred": 0, "gold": 0, "tag": 0}
    with torch.no_grad():
        for idx in batch_order([s.n for s in sents], batch_words, np.random.default_rng(0)):
            ts = [sents[i] for i in idx]
            batch, gold = make_batch(ts, vocabs, pretrained_index), gold_batch(ts)
            enc = net.encode(batch)
            mask = batch.mask
            L1 = batch.words.shape[1]
            cand = torch.arange(L1)[None, None, :] <= batch.lens[:, None, None]
            head = enc.s_arc.masked_fill(~cand, float("-inf")).argmax(-1)
            b, x = torch.nonzero(mask, as_tuple=True)
            lab = net.label_logits(enc, b, x, head[mask]).argmax(-1)
            ok_head = head[mask] == gold.heads[mask]
            c["words"] += int(mask.sum())
            c["heads"] += int(ok_head.sum())
            c["las"] += int((ok_head & (lab == gold.labels[mask])).sum())
            c["spine"] += int((enc.s_spine[mask].argmax(-1) == gold.spines[mask]).sum())
            tags = net.predicted_tags(enc)
            if tags is not None:
                c["tag"] += int((tags[mask] == batch.tags[mask]).sum())
            pair = mask[:, :, None] & mask[:, None, :] & ~torch.eye(L1, dtype=torch.bool)[None]
            pred = (enc.s_trace > 0) & pair
            g = gold.trace > 0.5
            c["tp"] += int((pred & g).sum())
            c["pred"] += int(pred.sum())
            c["gold"] += int(g.sum())
    net.train()
    pct = lambda a, b: 100.0 * a / b if b else 0.0  # noqa: E731
    p, r = pct(c["tp"], c["pred"]), pct(c["tp"], c["gold"])
    out = {"uas": pct(c["heads"], c["words"]), "las": pct(c["las"], c["words"]),
           "spine": pct(c["spine"], c["words"]), "trace_p": p, "trace_r": r,
           "trace_f": 2 * p * r / (p + r) if p + r else 0.0}
    if net.tags_predicted:
        out["tag"] = pct(c["tag"], c["words"])
    out["dev_score"] = (out["las"] + out["spine"] + out["trace_f"]) / 3
    return {k: round(v, 3) for k, v in out.items()}


def _pretrained(config: NeuralTrainConfig, vocabs):
    """``(matrix, index)`` of the pretrained vectors of ``config.embeddings`` (row 0
    padding, 1 unknown; the first ``embeddings_limit`` lines and the train split's word
    forms; scaled to unit standard deviation), or (None, None) without a file."""
    if not config.embeddings:
        return None, None
    from .network import load_embeddings

    vec, words = load_embeddings(config.embeddings, set(vocabs.words.items[2:]), limit=config.embeddings_limit)
    mat = np.concatenate([np.zeros((2, vec.shape[1]), np.float32), vec])
    mat[2:] /= max(float(np.std(mat[2:])), 1e-6)
    return mat, {w: i + 2 for i, w in enumerate(words)}


def train_neural(config: NeuralTrainConfig, *, log: Callable[[str], None] = print,
                 warn: Callable[[str], None] = to_stderr) -> dict:
    """Train the neural scorer into ``config.model_dir`` (module docstring), under the
    folder's lock (:func:`plgraph.files.lock.folder_lock`: a second run into it is refused);
    the folder's final header.  A folder holding a trained model is refused
    (OutputError) unless ``resume`` (continue its training) or ``overwrite``: then the
    new model trains into ``M/.plgraph-overwrite`` and replaces the old one only once
    complete (:func:`~plgraph.parser.scoring.neural.folder.replace_model`); ``overwrite`` with ``resume``
    continues such a run that was interrupted.  A replacement that a killed run left half
    done is completed first (and is all that ``overwrite`` with ``resume`` then does)."""
    from ....files.lock import folder_lock
    from ....files.replacement import finish_replacement, work_dir
    from .folder import NeuralFolder, is_neural_folder, replace_model

    mdir = config.model_dir
    new = _first_missing(mdir)
    os.makedirs(mdir, exist_ok=True)
    try:
        with deferred_interrupts(), folder_lock(mdir, "neural model folder"):
            if finish_replacement(mdir) and config.overwrite and config.resume:   # what was left of an overwrite run
                log(f"completed the replacement of the neural model in {mdir}")
                return NeuralFolder.open(mdir).header
            try:
                finished = is_neural_folder(mdir) and NeuralFolder.open(mdir).trained
            except ModelFileError:                          # a damaged model is still somebody's
                finished = True
            if not (config.overwrite and finished):
                if config.resume and not is_neural_folder(mdir):
                    raise InputError(f"--resume: {mdir} holds no neural model to continue (no neural.json); leave "
                                     f"--resume out to train a new one")
                return _train(config, log, warn)
            work = work_dir(mdir)                           # the old model stays until the new one is complete
            if not config.resume:
                shutil.rmtree(work, ignore_errors=True)
            _train(replace(config, model_dir=work, overwrite=False, resume=config.resume and is_neural_folder(work)),
                   log, warn)
            replace_model(work, mdir)
            log(f"replaced the neural model in {mdir}")
            return NeuralFolder.open(mdir).header
    except BaseException:
        if new is not None and not is_neural_folder(mdir):  # a run that made its folder and started no model
            shutil.rmtree(new, ignore_errors=True)
        raise


def _first_missing(path) -> str | None:
    """The highest folder of ``path`` (itself included) that does not exist yet, or None."""
    path, missing = os.path.abspath(path), None
    while not os.path.exists(path):
        missing, parent = path, os.path.dirname(path)
        if parent == path:
            break
        path = parent
    return missing


def _train(config: NeuralTrainConfig, log, warn) -> dict:
    """The training run of :func:`train_neural` in ``config.model_dir``: data, folder,
    network, then one epoch after the other (each checkpointed), then the decode tuned
    on dev; the folder's final header."""
    from . import require_torch
    from .batches import batch_order
    from .data import LabelMaps
    from .folder import is_neural_folder
    from .network import build_network, state_arrays

    torch = require_torch()
    torch.set_num_threads(config.threads)
    torch.manual_seed(config.seed)
    mdir = config.model_dir
    start_time = time.perf_counter()
    resuming = config.resume and is_neural_folder(mdir)
    if is_neural_folder(mdir) and not (config.resume or config.overwrite):
        raise OutputError(f"{mdir} already holds a neural model: --resume to continue its training, "
                          f"--overwrite to replace it")
    all_train, train_graphs, dev_graphs, counts = _data(config, warn)
    check_interrupt()
    folder, vocab, vocabs, pre_mat = _model_folder(config, resuming, all_train, train_graphs, warn)
    del all_train
    maps = LabelMaps(vocab)
    spine_index = {s: i for i, s in enumerate(vocabs.spines)}
    train_t = _targets(train_graphs, vocab, maps, spine_index, "train", warn)
    dev_t = _targets(dev_graphs, vocab, maps, spine_index, "dev", warn)
    log(f"plgraph neural: {len(train_t)} train and {len(dev_t)} dev sentences of at most {config.max_words} words "
        f"({counts['too_long_train']} / {counts['too_long_dev']} longer, {counts['unreadable']} unreadable); "
        f"{len(vocabs.words)} word forms, {len(vocabs.spines)} spines, {maps.structural.shape[0]} structural and "
        f"{maps.trace.shape[0]} trace labels")
    if not train_t:
        raise InputError("no training sentences")
    net = build_network(folder.header)
    pre_words = folder.header["vocabularies"].get("pretrained")
    pretrained_index = {w: i + 2 for i, w in enumerate(pre_words)} if pre_words else None
    opt = torch.optim.Adam([p for p in net.parameters() if p.requires_grad], config.lr, betas=(0.9, 0.9))
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda step: 0.75 ** (step / config.decay_steps))
    rng = np.random.default_rng(config.seed)
    epoch0, best, best_epoch = 0, -1.0, -1
    curves = list(folder.header.get("curves") or [])
    if resuming:
        epoch0, best, best_epoch, curves = _resume(folder, net, opt, sched, rng, epoch0, best, best_epoch, curves, log)
    if epoch0 == 0 and pretrained_index is not None:        # a fresh network: the vectors from the file
        if pre_mat is None:
            pre_mat, _ = _pretrained(config, vocabs)
        net.pretrained.weight.data = torch.from_numpy(pre_mat)
    elapsed0 = curves[-1]["minutes"] if curves else 0.0
    lengths = [t.n for t in train_t]
    for epoch in range(epoch0 + 1, config.epochs + 1):
        if best_epoch >= 0 and epoch - best_epoch > config.patience:
            log(f"plgraph neural: no better dev score for {config.patience} epochs: stopping")
            break
        minutes = elapsed0 + (time.perf_counter() - start_time) / 60
        if config.max_minutes is not None and minutes >= config.max_minutes:
            log(f"plgraph neural: {minutes:.1f} minutes: stopping")
            break
        t0 = time.perf_counter()
        batches = batch_order(lengths, config.batch_words, rng)
        sums = _train_epoch(net, opt, sched, train_t, batches, vocabs, pretrained_index, config, folder, epoch,
                            best_epoch)
        if not all(bool(torch.isfinite(p).all()) for p in net.parameters()):
            raise _diverged(folder, config, epoch, "the weights after its last batch are not finite", best_epoch)
        scores = local_scores(net, dev_t, vocabs, pretrained_index=pretrained_index)
        row = {"epoch": epoch, "seconds": round(time.perf_counter() - t0, 1),
               "minutes": round(elapsed0 + (time.perf_counter() - start_time) / 60, 2),
               **{f"loss_{k}": round(v / len(train_t), 4) for k, v in sums.items()}, **scores}
        curves.append(row)
        better = scores["dev_score"] > best
        if better:
            best, best_epoch = scores["dev_score"], epoch
        if better or config.keep == "last":
            folder.header["curves"] = curves
            folder.save_weights(state_arrays(net), epoch, scores)
        else:
            folder.header["curves"] = curves
            folder.write_header()
        _save_checkpoint(folder, net, opt, sched, rng, epoch, best, best_epoch, curves)
        tag_note = f" tags {scores['tag']:.2f}" if "tag" in scores else ""
        log(f"epoch {epoch}: loss {sum(sums.values()) / len(train_t):.3f}, dev UAS {scores['uas']:.2f} "
            f"LAS {scores['las']:.2f} spine {scores['spine']:.2f} trace F {scores['trace_f']:.2f}{tag_note}"
            f"{' (best)' if better else ''}, {row['seconds']:.0f} s")
    if config.tune and folder.trained:
        from .tune import tune_decode

        tune_decode(folder, dev_graphs, trace_precision=config.trace_precision, log=log, progress=config.progress)
    return folder.header


def _model_folder(config: NeuralTrainConfig, resuming: bool, all_train, train_graphs, warn):
    """``(folder, vocab, vocabularies, pretrained matrix or None)``: the resumed run's
    folder (its options checked against ``config``), or a new folder with the train
    split's labels, rules, vocabularies and POS tagger."""
    from .data import LabelMaps, Vocabularies
    from .folder import NeuralFolder

    mdir = config.model_dir
    pre_mat = None
    if resuming:
        folder = NeuralFolder.open(mdir)
        stored = folder.header["options"]
        given = config.options()
        diff = [k for k in _FIXED if k != "network" and stored.get(k) != given.get(k)]
        if NetworkConfig(**stored["network"]) != config.network:
            diff.append("network")
        if diff:
            raise InputError(f"{mdir}: --resume with other options than the stored run's ({', '.join(diff)}): "
                             f"give the same options, or --overwrite")
        vocab, rules = folder.vocab(), folder.rules()
        vocabs = Vocabularies.from_json(folder.header["vocabularies"])
    else:
        from ....learn.loop import conversion_record
        from ...training.pipeline import vocab_and_rules, train_tagger

        vocab, rules, info, malformed = vocab_and_rules(all_train, config.progress)
        for sid, reason in malformed:
            warn(f"plgraph neural: labels and rules leave out malformed sentence {sid}: {reason}")
        vocabs = Vocabularies.from_graphs(train_graphs)
        maps = LabelMaps(vocab)
        cfg = config.network
        voc_json = vocabs.to_json()
        pre_mat, pre_index = _pretrained(config, vocabs)
        if pre_mat is not None:
            cfg = replace(cfg, pretrained_dim=int(pre_mat.shape[1]))
            voc_json["pretrained"] = sorted(pre_index, key=pre_index.get)
        sizes = dict(n_words=len(vocabs.words), n_chars=len(vocabs.chars), n_tags=len(vocabs.tags),
                     n_labels=int(maps.structural.shape[0]), n_traces=int(maps.trace.shape[0]),
                     n_spines=len(vocabs.spines), n_pretrained=0 if pre_mat is None else int(pre_mat.shape[0]))
        opts = dict(config.options(), network=asdict(config.network))
        os.makedirs(mdir, exist_ok=True)
        folder = NeuralFolder.create(mdir, vocab=vocab, rules=rules, rules_info=info,
                                     vocabularies=voc_json, network=asdict(cfg), sizes=sizes,
                                     options=opts, conversion=conversion_record(train_graphs))
        for name in ("checkpoint.json", "checkpoint.npz"):
            if os.path.exists(folder.file(name)):
                os.remove(folder.file(name))
        if not cfg.predict_tags:                     # a network that tags needs no tagger of its own
            train_tagger(mdir, train_graphs, warn=warn)
    return folder, vocab, vocabs, pre_mat


def _resume(folder, net, opt, sched, rng, epoch0, best, best_epoch, curves, log):
    """``(epoch, best dev score, its epoch, curves)`` after the folder's checkpoint, the
    network, optimiser, scheduler and random generators restored from it (the values
    given when there is no checkpoint)."""
    import torch

    from .network import load_state

    ck = folder.load_checkpoint()
    if ck is not None:
        arrays, state = ck
        load_state(net, {k[4:]: v for k, v in arrays.items() if k.startswith("net.")}, folder.file("checkpoint.npz"))
        _restore_optimizer(opt, arrays, state["opt_steps"])
        sched.load_state_dict(state["scheduler"])
        for group, lr in zip(opt.param_groups, sched.get_last_lr()):
            group["lr"] = lr                 # the scheduler sets it at its next step only
        torch.set_rng_state(torch.from_numpy(arrays["torch_rng"]))
        rng.bit_generator.state = state["numpy_rng"]
        epoch0, best, best_epoch, curves = state["epoch"], state["best"], state["best_epoch"], state["curves"]
        log(f"plgraph neural: resuming after epoch {epoch0} (best dev {best:.2f} at epoch {best_epoch})")
    return epoch0, best, best_epoch, curves


def _train_epoch(net, opt, sched, train_t, batches, vocabs, pretrained_index, config, folder, epoch, best_epoch):
    """One pass over ``batches`` (lists of indices into ``train_t``); the summed loss
    parts.  TrainingDiverged when a loss or gradient norm is not finite."""
    import torch

    from .... import progress as P
    from .batches import gold_batch, make_batch

    sums: dict = {}
    with P.bar(len(batches), f"epoch {epoch}", config.progress, unit="batch") as bar:
        for b, idx in enumerate(batches, start=1):
            ts = [train_t[i] for i in idx]
            loss, parts = net.loss(make_batch(ts, vocabs, pretrained_index), gold_batch(ts))
            if not torch.isfinite(loss):
                raise _diverged(folder, config, epoch, f"batch {b}'s loss is {loss.item()}", best_epoch)
            opt.zero_grad()
            loss.backward()
            norm = torch.nn.utils.clip_grad_norm_(net.parameters(), config.clip)
            if not torch.isfinite(norm):
                raise _diverged(folder, config, epoch, f"batch {b}'s gradient norm is {float(norm)}", best_epoch)
            opt.step()
            sched.step()
            for k, v in parts.items():
                sums[k] = sums.get(k, 0.0) + v * len(idx)
            bar.update(1)
            check_interrupt()
    return sums


def _save_checkpoint(folder, net, opt, sched, rng, epoch, best, best_epoch, curves) -> None:
    """The checkpoint after ``epoch``: parameters, optimiser and scheduler state, random
    generators, curves."""
    import torch

    from .network import state_arrays

    arrays, steps = _optimizer_arrays(opt)
    arrays.update({f"net.{k}": v for k, v in state_arrays(net).items()})
    arrays["torch_rng"] = torch.get_rng_state().numpy()
    folder.save_checkpoint(arrays, {"epoch": epoch, "best": best, "best_epoch": best_epoch, "curves": curves,
                                    "opt_steps": steps, "scheduler": sched.state_dict(),
                                    "numpy_rng": rng.bit_generator.state})


def _diverged(folder, config: NeuralTrainConfig, epoch: int, what: str, best_epoch: int) -> TrainingDiverged:
    """The error that stops a run whose numbers stopped being finite in ``epoch``,
    saying what the folder keeps (nothing of this epoch is written)."""
    kept = (f"{folder.path} keeps the weights of epoch {best_epoch} (the best on dev so far) and the checkpoint of "
            f"epoch {epoch - 1}" if best_epoch >= 0 else f"no epoch finished, so {folder.path} holds no weights")
    return TrainingDiverged(f"training diverged in epoch {epoch}: {what}; {kept}. Train again with a smaller learning "
                            f"rate (--lr, now {config.lr:g}; --overwrite replaces the folder's model)")


__all__ = ["TrainingDiverged", "train_neural", "train_scorer", "neural_config", "local_scores"]

#!/usr/bin/env python3
"""GPT-2 and GPT-Neo through Tessera against a reference written from the equations.

Makes a small GPT-2 (or GPT-Neo: --family gpt_neo, its local window smaller than the run)
Hugging Face directory with random weights (config.json,
model.safetensors with GPT-2's Conv1D weights stored [in, out], vocab.json and merges.txt
of a byte-level BPE), packs it with tessera-pack, generates greedily with
tessera-generate, scores the run with tessera-eval --logits-out, and holds every
position's logits against a double-precision forward pass written here with
torch.nn.functional from the same files: within --tolerance of the position's largest
logit, and the greedy ids equal the reference's argmax.
"""
import argparse
import json
import math
import os
import struct
import subprocess
import sys

import torch
import torch.nn.functional as F


def bytes_to_unicode():
    """GPT-2's table: byte -> the printable character that stands for it."""
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return dict(zip(bs, (chr(c) for c in cs)))


def make_tokenizer():
    """256 byte tokens in GPT-2's order, a few merges, <|endoftext|> last."""
    table = bytes_to_unicode()
    vocab = {ch: i for i, ch in enumerate(table.values())}
    G = table[ord(" ")]
    merges = [(G, "t"), ("h", "e"), (G + "t", "he"), ("i", "n"), ("a", "n"), ("e", "r"), ("o", "n"), (G, "a"),
              ("r", "e"), (G, "s"), ("o", "u"), (G, "w"), ("a", "t"), ("e", "n"), (G + "a", "n"), ("i", "t"),
              (table[10], table[10]), (G, G), ("Ã", "©")]
    for a, b in merges:
        vocab.setdefault(a + b, len(vocab))
    vocab["<|endoftext|>"] = len(vocab)
    return vocab, merges


def write_safetensors(path, tensors):
    header, blobs, offset = {}, [], 0
    for name, t in tensors.items():
        data = t.to(torch.float32).contiguous().numpy().tobytes() if hasattr(t, "numpy") else t
        header[name] = {"dtype": "F32", "shape": list(t.shape), "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    h = json.dumps(header).encode()
    h += b" " * ((8 - len(h) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)))
        f.write(h)
        for b in blobs:
            f.write(b)


def make_model(directory, cfg, seed, neo, activation="gelu_new"):
    """The directory GPT2LMHeadModel's (or GPTNeoForCausalLM's) save_pretrained would write,
    random weights: GPT-2's Conv1D weights [in, out] and fused c_attn; GPT-Neo's nn.Linear
    weights [out, in], Q, K and V without a bias, global and local layers in turn."""
    os.makedirs(directory, exist_ok=True)
    vocab, merges = make_tokenizer()
    V, D, L, P = len(vocab), cfg["n_embd"], cfg["n_layer"], cfg["n_positions"]
    H = 4 * D
    g = torch.Generator().manual_seed(seed)
    rnd = lambda *shape, std=1.0: torch.randn(*shape, generator=g) * std
    t = {"transformer.wte.weight": rnd(V, D), "transformer.wpe.weight": rnd(P, D, std=0.5)}
    t["transformer.wte.weight"][V - 1] *= 0.05  # <|endoftext|>'s logit small: the greedy run goes on past it
    s = 4.0  # the layers' weights large beside the embeddings: a greedy run that does not only repeat its token
    for l in range(L):
        p = f"transformer.h.{l}."
        for ln in ("ln_1", "ln_2"):
            t[p + ln + ".weight"] = 1.0 + rnd(D, std=0.1)
            t[p + ln + ".bias"] = rnd(D, std=0.1)
        if neo:
            a = p + "attn.attention."
            t[a + "q_proj.weight"], t[a + "k_proj.weight"] = rnd(D, D, std=D ** -0.5), rnd(D, D, std=D ** -0.5)
            t[a + "v_proj.weight"], t[a + "out_proj.weight"] = rnd(D, D, std=s * D ** -0.5), rnd(D, D, std=s * D ** -0.5)
            t[a + "out_proj.bias"] = rnd(D, std=0.1)
            t[p + "mlp.c_fc.weight"], t[p + "mlp.c_proj.weight"] = rnd(H, D, std=s * D ** -0.5), rnd(D, H, std=s * H ** -0.5)
        else:  # Conv1D: [in, out]
            t[p + "attn.c_attn.weight"], t[p + "attn.c_attn.bias"] = rnd(D, 3 * D, std=s * D ** -0.5), rnd(3 * D, std=0.1)
            t[p + "attn.c_proj.weight"], t[p + "attn.c_proj.bias"] = rnd(D, D, std=s * D ** -0.5), rnd(D, std=0.1)
            t[p + "mlp.c_fc.weight"], t[p + "mlp.c_proj.weight"] = rnd(D, H, std=s * D ** -0.5), rnd(H, D, std=s * H ** -0.5)
        t[p + "mlp.c_fc.bias"], t[p + "mlp.c_proj.bias"] = rnd(H, std=0.1), rnd(D, std=0.1)
    t["transformer.ln_f.weight"] = 1.0 + rnd(D, std=0.1)
    t["transformer.ln_f.bias"] = rnd(D, std=0.1)
    write_safetensors(os.path.join(directory, "model.safetensors"), t)
    common = {"vocab_size": V, "activation_function": activation, "layer_norm_epsilon": 1e-5, "bos_token_id": V - 1,
              "eos_token_id": V - 1}
    if neo:
        config = {"architectures": ["GPTNeoForCausalLM"], "model_type": "gpt_neo", "max_position_embeddings": P,
                  "hidden_size": D, "num_layers": L, "num_heads": cfg["n_head"], "intermediate_size": None,
                  "window_size": cfg["window"], "attention_types": [[["global", "local"], L // 2]],
                  "attention_layers": ["global", "local"] * (L // 2), **common}
    else:
        config = {"architectures": ["GPT2LMHeadModel"], "model_type": "gpt2", "n_positions": P, "n_embd": D,
                  "n_layer": L, "n_head": cfg["n_head"], "n_inner": None, "tie_word_embeddings": True, **common}
    with open(os.path.join(directory, "config.json"), "w") as f:
        json.dump(config, f, indent=2)
    with open(os.path.join(directory, "vocab.json"), "w", encoding="utf-8") as f:
        json.dump(vocab, f, ensure_ascii=False)
    with open(os.path.join(directory, "merges.txt"), "w", encoding="utf-8") as f:
        f.write("#version: 0.2\n" + "".join(f"{a} {b}\n" for a, b in merges))


def write_gguf_gpt2(path, directory):
    """The same GPT-2 as llama.cpp's converter writes it (GGUF v3, general.architecture gpt2):
    Conv1D weights transposed to [out, in], byte-level BPE tokens and merges; from the
    directory's files, written here from the format's description."""
    with open(os.path.join(directory, "config.json")) as f:
        c = json.load(f)
    w = read_safetensors(os.path.join(directory, "model.safetensors"))
    with open(os.path.join(directory, "vocab.json"), encoding="utf-8") as f:
        vocab = json.load(f)
    with open(os.path.join(directory, "merges.txt"), encoding="utf-8") as f:
        merges = [l.rstrip("\n") for l in f if l.strip() and not l.startswith("#version")]
    tokens = sorted(vocab, key=vocab.get)
    D = c["n_embd"]
    t = {"token_embd.weight": w["transformer.wte.weight"], "position_embd.weight": w["transformer.wpe.weight"]}
    for l in range(c["n_layer"]):
        p, b = f"transformer.h.{l}.", f"blk.{l}."
        t[b + "attn_norm.weight"], t[b + "attn_norm.bias"] = w[p + "ln_1.weight"], w[p + "ln_1.bias"]
        t[b + "attn_qkv.weight"], t[b + "attn_qkv.bias"] = w[p + "attn.c_attn.weight"].T, w[p + "attn.c_attn.bias"]
        t[b + "attn_output.weight"], t[b + "attn_output.bias"] = w[p + "attn.c_proj.weight"].T, w[p + "attn.c_proj.bias"]
        t[b + "ffn_norm.weight"], t[b + "ffn_norm.bias"] = w[p + "ln_2.weight"], w[p + "ln_2.bias"]
        t[b + "ffn_up.weight"], t[b + "ffn_up.bias"] = w[p + "mlp.c_fc.weight"].T, w[p + "mlp.c_fc.bias"]
        t[b + "ffn_down.weight"], t[b + "ffn_down.bias"] = w[p + "mlp.c_proj.weight"].T, w[p + "mlp.c_proj.bias"]
    t["output_norm.weight"], t["output_norm.bias"] = w["transformer.ln_f.weight"], w["transformer.ln_f.bias"]
    t["output.weight"] = w["transformer.wte.weight"]

    def string(text):
        b = text.encode("utf-8")
        return struct.pack("<Q", len(b)) + b

    U32, F32, STR, ARR = 4, 6, 8, 9
    kv = [("general.architecture", STR, string("gpt2")),
          ("gpt2.context_length", U32, struct.pack("<I", c["n_positions"])),
          ("gpt2.embedding_length", U32, struct.pack("<I", D)),
          ("gpt2.feed_forward_length", U32, struct.pack("<I", 4 * D)),
          ("gpt2.block_count", U32, struct.pack("<I", c["n_layer"])),
          ("gpt2.attention.head_count", U32, struct.pack("<I", c["n_head"])),
          ("gpt2.attention.layer_norm_epsilon", F32, struct.pack("<f", c["layer_norm_epsilon"])),
          ("tokenizer.ggml.model", STR, string("gpt2")),
          ("tokenizer.ggml.tokens", ARR, struct.pack("<IQ", STR, len(tokens)) + b"".join(map(string, tokens))),
          ("tokenizer.ggml.merges", ARR, struct.pack("<IQ", STR, len(merges)) + b"".join(map(string, merges))),
          ("tokenizer.ggml.bos_token_id", U32, struct.pack("<I", c["bos_token_id"])),
          ("tokenizer.ggml.eos_token_id", U32, struct.pack("<I", c["eos_token_id"]))]
    out = bytearray(b"GGUF" + struct.pack("<IQQ", 3, len(t), len(kv)))
    for key, typ, value in kv:
        out += string(key) + struct.pack("<I", typ) + value
    blobs, offset = [], 0
    for name, x in t.items():
        data = x.to(torch.float32).contiguous().numpy().tobytes()
        out += string(name) + struct.pack("<I", x.dim()) + b"".join(struct.pack("<Q", d) for d in reversed(x.shape))
        out += struct.pack("<IQ", 0, offset)
        pad = (32 - len(data) % 32) % 32
        blobs.append(data + b"\0" * pad)
        offset += len(data) + pad
    out += b"\0" * ((32 - len(out) % 32) % 32)
    with open(path, "wb") as f:
        f.write(bytes(out) + b"".join(blobs))


def read_safetensors(path):
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(n))
        data = f.read()
    out = {}
    for name, t in header.items():
        if name == "__metadata__":
            continue
        b, e = t["data_offsets"]
        assert t["dtype"] == "F32"
        out[name] = torch.frombuffer(bytearray(data[b:e]), dtype=torch.float32).reshape(t["shape"]).to(torch.float64)
    return out


def approximate(directory):
    """torch's name for the directory's GELU: "tanh" (gelu_new) or "none" (gelu, the exact form)."""
    with open(os.path.join(directory, "config.json")) as f:
        return "none" if json.load(f)["activation_function"] == "gelu" else "tanh"


def reference_logits(directory, ids):
    """GPT-2's forward pass from its equations, in double precision, all positions at once."""
    with open(os.path.join(directory, "config.json")) as f:
        c = json.load(f)
    w = read_safetensors(os.path.join(directory, "model.safetensors"))
    pre = "transformer." if "transformer.wte.weight" in w else ""
    D, nh, eps = c["n_embd"], c["n_head"], c["layer_norm_epsilon"]
    hs = D // nh
    T = len(ids)
    x = w[pre + "wte.weight"][torch.tensor(ids)] + w[pre + "wpe.weight"][:T]
    mask = torch.ones(T, T, dtype=torch.bool).tril()
    for l in range(c["n_layer"]):
        p = f"{pre}h.{l}."
        h = F.layer_norm(x, (D,), w[p + "ln_1.weight"], w[p + "ln_1.bias"], eps)
        qkv = h @ w[p + "attn.c_attn.weight"] + w[p + "attn.c_attn.bias"]
        q, k, v = (qkv[:, i * D:(i + 1) * D].reshape(T, nh, hs).transpose(0, 1) for i in range(3))
        scores = (q @ k.transpose(1, 2)) / math.sqrt(hs)
        scores = scores.masked_fill(~mask, float("-inf"))
        y = (F.softmax(scores, dim=-1) @ v).transpose(0, 1).reshape(T, D)
        x = x + y @ w[p + "attn.c_proj.weight"] + w[p + "attn.c_proj.bias"]
        h = F.layer_norm(x, (D,), w[p + "ln_2.weight"], w[p + "ln_2.bias"], eps)
        m = F.gelu(h @ w[p + "mlp.c_fc.weight"] + w[p + "mlp.c_fc.bias"], approximate=approximate(directory))
        x = x + m @ w[p + "mlp.c_proj.weight"] + w[p + "mlp.c_proj.bias"]
    x = F.layer_norm(x, (D,), w[pre + "ln_f.weight"], w[pre + "ln_f.bias"], eps)
    head = w["lm_head.weight"] if "lm_head.weight" in w else w[pre + "wte.weight"]
    return x @ head.T


def reference_logits_gpt_neo(directory, ids):
    """GPT-Neo's forward pass from its equations, in double precision: GPT-2's layer with
    nn.Linear weights, no bias on Q, K and V, unscaled scores, and in the local layers each
    position attending to the last window_size positions (its own included)."""
    with open(os.path.join(directory, "config.json")) as f:
        c = json.load(f)
    w = read_safetensors(os.path.join(directory, "model.safetensors"))
    D, nh, eps, window = c["hidden_size"], c["num_heads"], c["layer_norm_epsilon"], c["window_size"]
    hs = D // nh
    T = len(ids)
    x = w["transformer.wte.weight"][torch.tensor(ids)] + w["transformer.wpe.weight"][:T]
    causal = torch.ones(T, T, dtype=torch.bool).tril()
    local = causal & ~torch.ones(T, T, dtype=torch.bool).tril(-window)
    for l in range(c["num_layers"]):
        p = f"transformer.h.{l}."
        a = p + "attn.attention."
        h = F.layer_norm(x, (D,), w[p + "ln_1.weight"], w[p + "ln_1.bias"], eps)
        q, k, v = (F.linear(h, w[a + n + ".weight"]).reshape(T, nh, hs).transpose(0, 1) for n in ("q_proj", "k_proj", "v_proj"))
        scores = q @ k.transpose(1, 2)
        mask = local if c["attention_layers"][l] == "local" else causal
        scores = scores.masked_fill(~mask, float("-inf"))
        y = (F.softmax(scores, dim=-1) @ v).transpose(0, 1).reshape(T, D)
        x = x + F.linear(y, w[a + "out_proj.weight"], w[a + "out_proj.bias"])
        h = F.layer_norm(x, (D,), w[p + "ln_2.weight"], w[p + "ln_2.bias"], eps)
        m = F.gelu(F.linear(h, w[p + "mlp.c_fc.weight"], w[p + "mlp.c_fc.bias"]), approximate=approximate(directory))
        x = x + F.linear(m, w[p + "mlp.c_proj.weight"], w[p + "mlp.c_proj.bias"])
    x = F.layer_norm(x, (D,), w["transformer.ln_f.weight"], w["transformer.ln_f.bias"], eps)
    head = w["lm_head.weight"] if "lm_head.weight" in w else w["transformer.wte.weight"]
    return x @ head.T


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"FAILED: {' '.join(cmd)}\n{r.stdout}{r.stderr}")
    return r.stdout


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin", help="folder of tessera-pack, tessera-generate, tessera-eval")
    ap.add_argument("--work", help="folder for the model, the images and the outputs")
    ap.add_argument("--make-only", metavar="DIR",
                    help="write the model's Hugging Face directory to DIR and stop (for the firmware tests' images)")
    ap.add_argument("--tokens", type=int, default=200, help="tokens generated after BOS (and positions compared)")
    ap.add_argument("--tolerance", type=float, default=1e-4, help="largest |difference| / the position's largest |logit|")
    ap.add_argument("--seed", type=int, default=45)
    ap.add_argument("--family", choices=["gpt2", "gpt_neo"], default="gpt2")
    ap.add_argument("--window", type=int, default=16, help="gpt_neo: window_size of the local layers")
    ap.add_argument("--activation", choices=["gelu_new", "gelu"], default="gelu_new",
                    help="config.json's activation_function: GELU's tanh form (gelu_new) or its exact form (gelu)")
    ap.add_argument("--bf16", action="store_true",
                    help="also pack at --precision bf16 and hold its logits within --bf16-tolerance of the reference, "
                         "printing its top-1 agreement with the fp32 image (tessera-eval --reference)")
    ap.add_argument("--bf16-tolerance", type=float, default=0.35,
                    help="bf16: largest |logit difference| / largest |logit| (its kernels are held to the fp32 arithmetic "
                         "rounded once in kernels_gpt_test; here the whole model, whose every activation rounds to 8 bits)")
    ap.add_argument("--bf16-agreement", type=float, default=0.85, help="bf16: the least top-1 agreement with the fp32 image")
    ap.add_argument("--int8", action="store_true",
                    help="also pack at --precision int8 (integer LayerNorm and GELU, no floating point but the "
                         "classifier's dequantized logits) and print its top-1 agreement with the fp32 image "
                         "(tessera-eval --reference), held to --int8-agreement")
    ap.add_argument("--int8-agreement", type=float, default=0.5,
                    help="int8: the least top-1 agreement with the fp32 image (a random model's logits are close "
                         "together: one int8 step moves its argmax more often than a trained model's)")
    ap.add_argument("--gguf", action="store_true",
                    help="gpt2: also write the model as GGUF (llama.cpp's gpt2 architecture) and require the image packed "
                         "from it to equal, byte for byte, the one from the directory")
    ap.add_argument("--pack-args", default="", help="more tessera-pack options, space-separated")
    ap.add_argument("--prompt-logits-all", action="store_true",
                    help="pack with --prompt-logits all: eval scores through the prompt schedule, chunk by chunk")
    a = ap.parse_args()
    shape = {"n_embd": 64, "n_layer": 2, "n_head": 4, "n_positions": 256, "window": a.window}
    if a.make_only:
        make_model(a.make_only, shape, a.seed, a.family == "gpt_neo", a.activation)
        return
    if not a.bin or not a.work:
        ap.error("--bin and --work are needed (or --make-only)")

    model = os.path.join(a.work, a.family)
    make_model(model, shape, a.seed, a.family == "gpt_neo", a.activation)
    image = os.path.join(a.work, a.family + ".tsr")
    pack = [os.path.join(a.bin, "tessera-pack"), model, "-o", image, "-q"] + a.pack_args.split()
    if a.prompt_logits_all:
        pack += ["--prompt-logits", "all"]
    run(pack)
    if a.gguf:
        gguf = os.path.join(a.work, "gpt2.gguf")
        write_gguf_gpt2(gguf, model)
        from_gguf = os.path.join(a.work, "gpt2-from-gguf.tsr")
        run([pack[0], gguf, "-o", from_gguf] + pack[2 + 2:])
        with open(image, "rb") as f1, open(from_gguf, "rb") as f2:
            same = f1.read() == f2.read()
        size = os.path.getsize(image)
        print(f"gpt2: the image packed from GGUF is {'identical to' if same else 'NOT the same as'} the one from the "
              f"Hugging Face directory ({size} bytes)")
        if not same:
            sys.exit("FAILED: the GGUF image differs (cmp " + image + " " + from_gguf + ")")
    out = run([os.path.join(a.bin, "tessera-generate"), image, "-n", str(a.tokens), "-t", "0", "--ids", "-q"])
    generated = [int(t) for t in out.split()]
    if len(generated) != a.tokens:
        sys.exit(f"FAILED: the model's greedy run ended after {len(generated)} tokens, not {a.tokens}")
    with open(os.path.join(model, "config.json")) as f:
        bos = json.load(f)["bos_token_id"]
    # A random model's greedy run soon repeats itself: the logits are held on a sequence of
    # random ids as well as long (teacher-forced), the greedy ids on the run's own.
    rnd = torch.Generator().manual_seed(a.seed + 1)
    ids = [bos] + [int(t) for t in torch.randint(0, bos, (a.tokens,), generator=rnd)]
    ids_file = os.path.join(a.work, "ids.txt")
    with open(ids_file, "w") as f:
        f.write(" ".join(map(str, ids)) + "\n")
    logits_file = os.path.join(a.work, "logits.f32")
    # The last id is scored, not fed: one more so that every generated token's position is compared.
    run([os.path.join(a.bin, "tessera-eval"), image, "--ids-file", ids_file, "--logits-out", logits_file, "-q"])
    ref = (reference_logits if a.family == "gpt2" else reference_logits_gpt_neo)(model, ids[:-1])
    with open(logits_file, "rb") as f:
        got = torch.frombuffer(bytearray(f.read()), dtype=torch.float32).to(torch.float64)
    got = got.reshape(-1, ref.shape[1])
    if got.shape != ref.shape:
        sys.exit(f"FAILED: tessera-eval wrote {tuple(got.shape)} logits, the reference has {tuple(ref.shape)}")
    worst, worst_pos = 0.0, 0
    for i in range(ref.shape[0]):
        rel = float((got[i] - ref[i]).abs().max() / ref[i].abs().max())
        if rel > worst:
            worst, worst_pos = rel, i
    greedy = [int(t) for t in (reference_logits if a.family == "gpt2" else reference_logits_gpt_neo)(
        model, [bos] + generated[:-1]).argmax(dim=1)]
    differ = [i for i in range(len(generated)) if greedy[i] != generated[i]]
    print(f"{a.family}: {ref.shape[0]} positions of random ids compared: largest |logit difference| / largest |logit| "
          f"{worst:.3e} at position {worst_pos} (tolerance {a.tolerance:g}); {len(generated)} tokens generated greedily "
          f"({len(set(generated))} different ids), equal to the reference's argmax at {len(generated) - len(differ)} of "
          f"{len(generated)}")
    def against_fp32(precision):
        """The image at `precision`: its largest logit difference from the reference, its top-1 agreement
        with the fp32 image."""
        other = os.path.join(a.work, f"{a.family}-{precision}.tsr")
        run(pack[:3] + [other] + pack[4:] + ["--precision", precision])
        other_logits = os.path.join(a.work, f"logits-{precision}.f32")
        out = run([os.path.join(a.bin, "tessera-eval"), other, "--ids-file", ids_file, "--reference", image, "--json",
                   "-q", "--logits-out", other_logits])
        with open(other_logits, "rb") as f:
            lo = torch.frombuffer(bytearray(f.read()), dtype=torch.float32).to(torch.float64).reshape(-1, ref.shape[1])
        worst_other = max(float((lo[i] - ref[i]).abs().max() / ref[i].abs().max()) for i in range(ref.shape[0]))
        return worst_other, json.loads(out)["top1_agreement"]

    if a.bf16:
        worst_bf16, agreement = against_fp32("bf16")
        print(f"{a.family} bf16: largest |logit difference| / largest |logit| {worst_bf16:.3e} (tolerance "
              f"{a.bf16_tolerance:g}); top-1 agreement with the fp32 image {100 * agreement:.1f} % over "
              f"{ref.shape[0]} positions")
        if worst_bf16 > a.bf16_tolerance or agreement < a.bf16_agreement:
            sys.exit("FAILED: bf16 logits beyond their tolerance, or its top-1 agreement below " + str(a.bf16_agreement))
    if a.int8:
        worst_int8, agreement = against_fp32("int8")
        print(f"{a.family} int8: largest |logit difference| / largest |logit| {worst_int8:.3e}; top-1 agreement with "
              f"the fp32 image {100 * agreement:.1f} % over {ref.shape[0]} positions (least {100 * a.int8_agreement:g} %)")
        if agreement < a.int8_agreement:
            sys.exit("FAILED: int8's top-1 agreement below " + str(a.int8_agreement))
    if worst > a.tolerance or differ:
        sys.exit(f"FAILED: {'logits beyond the tolerance' if worst > a.tolerance else ''} "
                 f"{'ids differ at ' + str(differ[:10]) if differ else ''}")
    print("1 passed, 0 failed")


if __name__ == "__main__":
    main()

"""Hardware and target/draft presets for the serving-under-load panel, each value tagged printed or derived.

Every number carries a ``sources`` entry: "printed: <where>" for a number as the
source prints it, "derived: <how>" for one computed here from printed ones. The
derivations are code (``kv_bytes_per_token``, ``llama_param_count``,
``llama_ffn_dim``), run at import, and re-checked by
tests/explainers/speculative_decoding/test_serving.py.

Units as the vendors print them: an accelerator's figures are written once, in
``Accelerator.shown``, as its data sheet prints them and the reader sees them
("80 GB HBM3", "3.35 TB/s", "989.4 TFLOPS"), and ``vendor_quantity`` parses the
model's numbers from them, so the two cannot drift. Capacities are decimal as
printed (GB = 10^9 bytes) for every vendor, though HBM stacks are binary (ROCm
gives the MI300X 192 GiB): one rule, and a lower bound (7.4 % under) on what a
server can use. Data sheets: NVIDIA A100 / H100 / H200 Tensor Core GPU data
sheets (H100 Architecture whitepaper for dense BF16); AMD Instinct MI300X data sheet.

How the sources were read. The search tool used to build these presets holds
stored copies of public pages, not the live web. Where the vendor's own page
was stored it is cited directly (AMD's ROCm documentation, Meta's llama-models
repository). NVIDIA's product pages, data sheets and whitepaper were not stored
themselves: their numbers were read through stored transcriptions (named in
each accelerator's ``notes``), and the vendor URL is cited as the source of
record. The Hugging Face config.json files of the gated meta-llama repositories
were likewise read through stored copies whose ``_name_or_path`` names the
original. Nothing below was filled in from memory; what could not be found is
said in a comment instead.

Peak FLOP/s are DENSE BF16 tensor-core rates. NVIDIA's product pages print the
with-sparsity figure (marked "*"), twice the dense one: the dense figure is the
whitepaper's where it prints one, else half the sparse one (marked derived).

MagicDec, the reference the panel should be compared with: Chen, Tiwari,
Sadhukhan, Chen, Shi, Yen & Chen, "MagicDec: Breaking the Latency-Throughput
Tradeoff for Long Context Generation with Speculative Decoding",
arXiv:2408.11049, first posted August 2024 (v3 has this author list; v5, the
ICLR 2025 version, lists Sadhukhan first and adds authors). What it reports
(abstracts of v3 and v5, read in stored copies of arxiv.org/html/2408.11049v3
and v5):

* "SD can achieve speedup even for a high throughput inference regime for
  moderate to long sequences", and "an intelligent drafting strategy can
  achieve better speedup with increasing batch size": the bottleneck shifts
  with batch size and sequence length, so that at long contexts the KV cache,
  not the weights, dominates the memory traffic and the pass stays
  memory-bound at large batches.
* It drafts with a sparse KV cache (StreamingLLM: a fixed window), because the
  KV bottleneck "scales with both sequence length and batch size".
* v3: "up to 2x speedup for LLaMA-2-7B-32K and 1.84x speedup for LLaMA-3.1-8B
  when serving batch sizes ranging from 32 to 256 on 8 NVIDIA A100 GPUs";
  v5: "up to 2.51x speedup for LLaMA-3.1-8B when serving batch sizes ranging
  from 32 to 256 on various types of hardware and tasks".
* Its Figure 1 (TinyLlama-1.1B drafting for LLaMA-2-7B-32K) shows speculation
  raising throughput for sequences longer than 1024 tokens; this one was read
  only in a third-party summary (liner.com), not in the paper.

How to compare: in ``serving.py`` the target's pass has a ridge batch (where it
turns compute-bound) of (P b / BW) / (2 P T / F - kv / BW), which is infinite
once kv / BW >= 2 P T / F: at long enough contexts verification stays
memory-bound at every batch size and S(B) tends to E kv_t / (gamma kv_d + kv_t).
So the model reproduces MagicDec's qualitative claim (S rising with batch size)
exactly when the draft's KV read per sequence is small next to the target's,
i.e. with a fixed-window draft cache (set ``draft_kv_bytes`` to window x the
draft's KV bytes per token). With a full-cache draft of a different shape it
can go the other way: Llama-2-7B (32 KV heads, no GQA) reads 512 KiB per token,
more than Llama-2-70B's 320 KiB. The model omits attention FLOPs, prefill and
kernel efficiency, and uses peak numbers, so it bounds rather than reproduces
MagicDec's measured speedups; the shape, not the numbers, is what to compare.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from decimal import Decimal

#: bytes per BF16 value (weights and KV cache): a 16-bit format
BF16_BYTES = 2

MAGICDEC = {
    "text": "Chen et al. (2024), MagicDec: Breaking the Latency-Throughput Tradeoff for Long Context Generation "
            "with Speculative Decoding, arXiv:2408.11049",
    "url": "https://arxiv.org/abs/2408.11049",
}


@dataclass(frozen=True)
class Accelerator:
    """One device: bandwidth, dense BF16 peak and memory, each with its source; ``shown``: the three as printed."""

    id: str
    label: str
    bandwidth: float  # bytes/s
    flops: float  # dense BF16 FLOP/s
    memory: float  # bytes per device
    sources: dict
    citations: list
    shown: dict
    notes: str = ""

    def to_dict(self) -> dict:
        """JSON-ready dict of every field."""
        return asdict(self)


@dataclass(frozen=True)
class ModelConfig:
    """A model's published configuration (printed) and what follows from it (derived)."""

    id: str
    label: str
    config: dict  # the printed fields, named as in Hugging Face config.json
    params: int
    kv_bytes_per_token: int  # at BF16
    sources: dict
    citations: list
    notes: str = ""

    def to_dict(self) -> dict:
        """JSON-ready dict of every field."""
        return asdict(self)


@dataclass(frozen=True)
class Pairing:
    """A target/draft pair; c is the page's draft cost, the memory-bound ratio P_d / P_t."""

    id: str
    label: str
    target: str
    draft: str
    c: float
    sources: dict
    notes: str = ""
    tags: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        """JSON-ready dict of every field."""
        return asdict(self)


#: a vendor's unit -> its SI factor (bytes, bytes/s, FLOP/s); decimal, as the data sheets print them
VENDOR_UNITS = {"GB": 10**9, "GB/s": 10**9, "TB/s": 10**12, "TFLOPS": 10**12}


def vendor_quantity(figure: str) -> float:
    """A figure as a vendor prints it ("2,039 GB/s", "192 GB HBM3", "989.4 TFLOPS") in SI units, exactly
    ("3.35 TB/s" is the float 3.35e12). What follows the unit (HBM3) is a name; a unit the vendors do not
    print (GiB) is a ValueError: the arithmetic takes the shown figure in the shown unit."""
    parts = figure.split()
    if len(parts) < 2 or parts[1] not in VENDOR_UNITS:
        raise ValueError(f"not a vendor figure (number, then one of {sorted(VENDOR_UNITS)}): {figure!r}")
    return float(Decimal(parts[0].replace(",", "")) * VENDOR_UNITS[parts[1]])


def accelerator(id: str, label: str, shown: dict, sources: dict, citations: list, notes: str = "") -> Accelerator:
    """An accelerator whose numbers are its shown figures parsed (``vendor_quantity``)."""
    return Accelerator(id=id, label=label, bandwidth=vendor_quantity(shown["bandwidth"]),
                       flops=vendor_quantity(shown["flops"]), memory=vendor_quantity(shown["memory"]),
                       sources=sources, citations=citations, shown=dict(shown), notes=notes)


def kv_bytes_per_token(layers: int, kv_heads: int, head_dim: int, bytes_per_value: int = BF16_BYTES) -> int:
    """KV-cache bytes one token adds: layers x KV heads x head dim x 2 (K and V) x bytes per value."""
    return layers * kv_heads * head_dim * 2 * bytes_per_value


def llama_ffn_dim(dim: int, ffn_dim_multiplier: float, multiple_of: int) -> int:
    """Meta's FeedForward sizing (llama-models reference model.py): 4 dim x 2/3 x multiplier, rounded up."""
    hidden = int(ffn_dim_multiplier * int(2 * (4 * dim) / 3))
    return multiple_of * ((hidden + multiple_of - 1) // multiple_of)


def llama_param_count(cfg: dict) -> int:
    """Parameters of a Llama-architecture decoder from its config.json fields.

    Per layer: q and o projections (hidden x heads x head dim each), k and v
    (hidden x KV heads x head dim each), gate, up and down (hidden x
    intermediate each), two RMSNorm weight vectors. Plus the token embedding,
    the final norm, and the output head unless ``tie_word_embeddings``. No
    biases (attention_bias and mlp_bias are false in every config used here).
    """
    h, heads, kvh = cfg["hidden_size"], cfg["num_attention_heads"], cfg["num_key_value_heads"]
    hd = cfg.get("head_dim", h // heads)
    attn = 2 * h * heads * hd + 2 * h * kvh * hd
    mlp = 3 * h * cfg["intermediate_size"]
    layer = attn + mlp + 2 * h
    embed = cfg["vocab_size"] * h
    head = 0 if cfg.get("tie_word_embeddings", False) else cfg["vocab_size"] * h
    return embed + cfg["num_hidden_layers"] * layer + h + head


def _kv(cfg: dict) -> int:
    hd = cfg.get("head_dim", cfg["hidden_size"] // cfg["num_attention_heads"])
    return kv_bytes_per_token(cfg["num_hidden_layers"], cfg["num_key_value_heads"], hd)


# ---------------------------------------------------------------------------------------------- hardware

H100_PAGE = "https://www.nvidia.com/en-us/data-center/h100/"
H100_WHITEPAPER = "https://nvdam.widen.net/s/95bdhpsgrs/nvidia_h100_tensor_core_gpu_architecture_whitepaper_v1.03"
H200_PAGE = "https://www.nvidia.com/en-us/data-center/h200/"
A100_DATASHEET = ("https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a100/pdf/"
                  "nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf")
MI300_ARCH = "https://rocm.docs.amd.com/en/docs-6.2.2/conceptual/gpu-arch/mi300.html"
ROCM_SPECS = "https://rocm.docs.amd.com/en/latest/reference/gpu-specs.html"
MI300X_DATASHEET = ("https://www.amd.com/content/dam/amd/en/documents/instinct-tech-docs/data-sheets/"
                    "amd-instinct-mi300x-data-sheet.pdf")

_TRANSCRIBED = "NVIDIA's page itself was not stored; its numbers were read through stored transcriptions: "

ACCELERATORS = [
    accelerator(
        id="a100-80gb-sxm", label="NVIDIA A100 80GB SXM",
        shown={"bandwidth": "2,039 GB/s", "flops": "312 TFLOPS", "memory": "80 GB HBM2e"},
        sources={
            "bandwidth": "printed: A100 data sheet, GPU memory bandwidth 2,039GB/s (A100 80GB SXM)",
            "flops": "printed: A100 data sheet, BFLOAT16 Tensor Core 312 TFLOPS | 624 TFLOPS* (* with sparsity; "
                     "the dense 312 is used)",
            "memory": "printed: A100 data sheet, GPU memory 80GB HBM2e (80 x 10^9 bytes, decimal as printed)",
        },
        citations=[{"text": "NVIDIA A100 Tensor Core GPU data sheet", "url": A100_DATASHEET}],
        notes=_TRANSCRIBED + "glennklockwood.com/garden/processors/A100 (cites this data sheet: 80 GB HBM2e, "
              "2.039 [TB/s], BF16 312 matrix / 624 sparse) and thundercompute.com's A100 specs table "
              "(A100 SXM 80GB: 2,039GB/s).",
    ),
    accelerator(
        id="h100-sxm", label="NVIDIA H100 SXM",
        shown={"bandwidth": "3.35 TB/s", "flops": "989.4 TFLOPS", "memory": "80 GB HBM3"},
        sources={
            "bandwidth": "printed: H100 data sheet and product page, GPU Memory Bandwidth 3.35TB/s (H100 SXM column)",
            "flops": "printed: H100 architecture whitepaper v1.04, Table 1, Peak BF16 Tensor Core 989.4 TFLOPS | "
                     "1978.9 TFLOPS (H100 SXM5; the second with sparsity). The data sheet prints only the "
                     "sparse 1,979 teraFLOPS",
            "memory": "printed: H100 data sheet and product page, GPU Memory 80GB (80 x 10^9 bytes); HBM3",
        },
        citations=[{"text": "NVIDIA H100 Tensor Core GPU data sheet (product page)", "url": H100_PAGE},
                   {"text": "NVIDIA H100 Tensor Core GPU Architecture whitepaper", "url": H100_WHITEPAPER}],
        notes=_TRANSCRIBED + "a citations dossier quoting the whitepaper's Tables 1 and 3 and the product page "
              "verbatim (\"Peak BF16 Tensor Core 989.4 TFLOPS | 1978.9 TFLOPS\"; \"BFLOAT16 Tensor Core * 1,979 "
              "teraFLOPS\"), a parser test quoting the product page's \"GPU Memory 80GB 94GB GPU Memory Bandwidth "
              "3.35TB/s 3.9TB/s\", hpctech.co.jp's copy of the data sheet (3,350 GB/sec, 80 GB, BFLOAT16 1,979 "
              "TFLOPS*, \"* Shown with sparsity. Specifications 1/2 lower without sparsity\") and "
              "glennklockwood.com/garden/processors/h100 (H100 SXM5: 80 GB HBM3, 5 stacks; 3.35 TB/s). The issue's "
              "scale check (break-even at batch 157) needs F / BW between about 293.5 and 295.4 FLOP/byte: "
              "989.4 / 3.35 gives 157; the data sheet's 1,979 / 2 = 989.5 would give 158.",
    ),
    accelerator(
        id="h200-sxm", label="NVIDIA H200 SXM",
        shown={"bandwidth": "4.8 TB/s", "flops": "989.5 TFLOPS", "memory": "141 GB HBM3e"},
        sources={
            "bandwidth": "printed: H200 data sheet and product page, GPU Memory Bandwidth 4.8TB/s",
            "flops": "derived: half the H200 data sheet's BFLOAT16 Tensor Core 1,979 TFLOPS, which is printed "
                     "with sparsity (no dense figure for the H200 was found in a stored source); 989.5 TFLOPS",
            "memory": "printed: H200 data sheet and product page, GPU Memory 141GB (141 x 10^9 bytes); HBM3e",
        },
        citations=[{"text": "NVIDIA H200 Tensor Core GPU data sheet (product page)", "url": H200_PAGE}],
        notes=_TRANSCRIBED + "aiwiki.ai/wiki/nvidia_h200 (141 GB at 4.8 TB/s), lzwjava.github.io's H100/H200 "
              "table (141 GB HBM3e, 4.8 TB/s; compute figures \"include sparsity\"), ai-hpc.github.io's H200 page "
              "(BF16 Tensor Core ~1,979 TFLOPS) and NVIDIA's own MLPerf Inference v4.1 system description "
              "H200-SXM-141GBx8 (accelerator_memory_capacity \"141 GB\"). The H200 is the H100's GH100 silicon "
              "with more memory, so 989.5 here against the H100's 989.4 is rounding, not a difference.",
    ),
    accelerator(
        id="mi300x", label="AMD Instinct MI300X",
        shown={"bandwidth": "5.3 TB/s", "flops": "1307.4 TFLOPS", "memory": "192 GB HBM3"},
        sources={
            "bandwidth": "printed: AMD Instinct MI300X data sheet, peak memory bandwidth 5.3 TB/s; ROCm MI300 "
                         "microarchitecture page, \"The theoretical aggregated peak memory bandwidth of the GPU is "
                         "5.3 TB per second\"",
            "flops": "printed: AMD Instinct MI300X data sheet and the ROCm MI300 microarchitecture page's MI300X "
                     "table, Matrix BF16 1307.4 peak TFLOPS (dense: the table has no sparsity column)",
            "memory": "printed: AMD Instinct MI300X data sheet, 192 GB HBM3 (192 x 10^9 bytes, decimal as printed; "
                      "ROCm's GPU specifications table gives the physical 192 GiB, not used: see the module "
                      "docstring)",
        },
        citations=[{"text": "AMD Instinct MI300X Accelerator data sheet", "url": MI300X_DATASHEET},
                   {"text": "AMD ROCm documentation: AMD Instinct MI300 series microarchitecture", "url": MI300_ARCH},
                   {"text": "AMD ROCm documentation: AMD GPU specifications", "url": ROCM_SPECS}],
        notes="Read in the stored sources of AMD's ROCm documentation (ROCm/legacy-rocm-build "
              "docs/conceptual/gpu-arch/mi300.md, ROCm/rocm-docs docs/reference/gpu-specs.rst). The data sheet "
              "was read through PyTorch's device table, which cites it (BF16 1307.4 TFLOPS, 5300 GB/s, 192 GB), "
              "and tomshardware.com's launch report (192 GB of HBM3). The preset used ROCm's 192 GiB before: "
              "eight devices read 1,649 GB where the vendor's figure makes 1,536 GB.",
    ),
]

# ---------------------------------------------------------------------------------------------- models

_HF = "https://huggingface.co/{}/blob/main/config.json"
_SKU = "https://github.com/meta-llama/llama-models/blob/main/models/sku_list.py"
_L32_CARD = "https://github.com/meta-llama/llama-models/blob/main/models/llama3_2/MODEL_CARD.md"

_LLAMA2_70B = {"hidden_size": 8192, "intermediate_size": 28672, "num_hidden_layers": 80, "num_attention_heads": 64,
               "num_key_value_heads": 8, "vocab_size": 32000, "tie_word_embeddings": False}
_LLAMA2_7B = {"hidden_size": 4096, "intermediate_size": 11008, "num_hidden_layers": 32, "num_attention_heads": 32,
              "num_key_value_heads": 32, "vocab_size": 32000, "tie_word_embeddings": False}
# Llama 3.1: Meta's model_args (dim, n_layers, n_heads, n_kv_heads, vocab_size, ffn_dim_multiplier, multiple_of);
# intermediate_size is derived from them by Meta's FFN rule and matches the stored config.json copies
_LLAMA31_70B = {"hidden_size": 8192, "num_hidden_layers": 80, "num_attention_heads": 64, "num_key_value_heads": 8,
                "vocab_size": 128256, "tie_word_embeddings": False, "intermediate_size": llama_ffn_dim(8192, 1.3, 4096)}
_LLAMA31_8B = {"hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 8,
               "vocab_size": 128256, "tie_word_embeddings": False, "intermediate_size": llama_ffn_dim(4096, 1.3, 1024)}
_LLAMA32_1B = {"hidden_size": 2048, "intermediate_size": 8192, "num_hidden_layers": 16, "num_attention_heads": 32,
               "num_key_value_heads": 8, "head_dim": 64, "vocab_size": 128256, "tie_word_embeddings": True}

_PARAMS = ("derived: llama_param_count(config): embeddings + layers x (q, k, v, o, gate, up, down, 2 norms)"
           " + norm + head")
_KVT = "derived: layers x KV heads x head dim x 2 (K and V) x 2 bytes (BF16)"


def _model(id, label, cfg, config_source, citations, notes=""):
    return ModelConfig(id=id, label=label, config=cfg, params=llama_param_count(cfg), kv_bytes_per_token=_kv(cfg),
                       sources={"config": config_source, "params": _PARAMS, "kv_bytes_per_token": _KVT},
                       citations=citations, notes=notes)


MODELS = [
    _model("llama-2-70b", "Llama 2 70B", _LLAMA2_70B,
           "printed: meta-llama/Llama-2-70b-hf config.json",
           [{"text": "meta-llama/Llama-2-70b-hf config.json", "url": _HF.format("meta-llama/Llama-2-70b-hf")}],
           "Read in a stored copy whose _name_or_path is meta-llama/Llama-2-70b-hf "
           "(huggingface.co/TheBloke/Llama-2-70B-fp16, config.json); the gated original was not stored. "
           "GQA: 8 KV heads for 64 query heads."),
    _model("llama-2-7b", "Llama 2 7B", _LLAMA2_7B,
           "printed: meta-llama/Llama-2-7b-hf config.json",
           [{"text": "meta-llama/Llama-2-7b-hf config.json", "url": _HF.format("meta-llama/Llama-2-7b-hf")}],
           "Read in stored copies whose _name_or_path is meta-llama/Llama-2-7b-hf (e.g. "
           "huggingface.co/north/llama2-7b-exporttest1). No GQA: 32 KV heads, so its KV cache per token "
           "(512 KiB) is larger than Llama 2 70B's (320 KiB). (Meta's sku_list.py gives this model 8 KV heads "
           "and a 128256 vocabulary, a copy of its Llama 3 entries that the configs contradict; not used.)"),
    _model("llama-3.1-70b", "Llama 3.1 70B", _LLAMA31_70B,
           "printed: Meta's model_args in llama-models sku_list.py (dim 8192, n_layers 80, n_heads 64, "
           "n_kv_heads 8, vocab_size 128256, ffn_dim_multiplier 1.3, multiple_of 4096); intermediate_size derived "
           "(llama_ffn_dim: 28672)",
           [{"text": "meta-llama/llama-models, models/sku_list.py", "url": _SKU},
            {"text": "meta-llama/Llama-3.1-70B config.json", "url": _HF.format("meta-llama/Llama-3.1-70B")}],
           "Cross-checked with stored config.json copies of meta-llama/Meta-Llama-3.1-70B-Instruct fine-tunes "
           "(intermediate_size 28672, num_key_value_heads 8, vocab_size 128256)."),
    _model("llama-3.1-8b", "Llama 3.1 8B", _LLAMA31_8B,
           "printed: Meta's model_args in llama-models sku_list.py (dim 4096, n_layers 32, n_heads 32, "
           "n_kv_heads 8, vocab_size 128256, ffn_dim_multiplier 1.3, multiple_of 1024); intermediate_size derived "
           "(llama_ffn_dim: 14336)",
           [{"text": "meta-llama/llama-models, models/sku_list.py", "url": _SKU},
            {"text": "meta-llama/Llama-3.1-8B config.json", "url": _HF.format("meta-llama/Llama-3.1-8B")}]),
    _model("llama-3.2-1b", "Llama 3.2 1B", _LLAMA32_1B,
           "printed: meta-llama/Llama-3.2-1B config.json",
           [{"text": "meta-llama/Llama-3.2-1B config.json", "url": _HF.format("meta-llama/Llama-3.2-1B")},
            {"text": "Llama 3.2 model card", "url": _L32_CARD}],
           "Read in stored copies whose _name_or_path is meta-llama/Llama-3.2-1B (e.g. "
           "huggingface.co/Emm9625/Llama-3.2-1B-chatml, duplicated from unsloth/Llama-3.2-1B). The model card "
           "prints \"1B (1.23B)\" parameters and shared embeddings; the derived count, 1,235,814,400, agrees to "
           "the digits printed if the card truncates (rounded it would read 1.24B; the card does not say)."),
]

_BY_ID = {m.id: m for m in MODELS}


def _pairing(id, target, draft, notes=""):
    t, d = _BY_ID[target], _BY_ID[draft]
    # the panel's draft is c x the target (the figure's c), with this draft's KV
    # cache: the label says so, and names the draft only as the c that is it
    return Pairing(id=id, label=f"{t.label}, a draft of c × the target with {d.label}'s KV cache "
                   f"(c = {d.params / t.params:.3f} is {d.label})", target=target, draft=draft,
                   c=d.params / t.params,
                   sources={"c": f"derived: memory-bound ratio P_d / P_t = {d.params:,} / {t.params:,}",
                            "target": t.sources["params"], "draft": d.sources["params"]},
                   notes=notes, tags={"target": t.label, "draft": d.label})


PAIRINGS = [
    _pairing("llama-2-70b-7b", "llama-2-70b", "llama-2-7b",
             "The issue's scale check pairing (70B target, 7B draft, same 32000-token vocabulary). At long "
             "contexts its draft reads more KV per sequence than its target (512 vs 320 KiB per token)."),
    _pairing("llama-3.1-70b-3.2-1b", "llama-3.1-70b", "llama-3.2-1b",
             "Same 128256-token vocabulary; the draft reads a tenth of the target's KV per token (32 vs 320 KiB)."),
    _pairing("llama-3.1-70b-8b", "llama-3.1-70b", "llama-3.1-8b",
             "Same 128256-token vocabulary; the draft reads 128 KiB of KV per token against the target's 320."),
]
# Not included: a Chinchilla-like pairing (the page's Chen et al. 2023 presets, a 70B target with a 4B draft).
# Their configurations were not looked up for this panel, so no number for them is given here.


def accelerators() -> list[Accelerator]:
    """Every hardware preset, in the order above."""
    return list(ACCELERATORS)


def models() -> list[ModelConfig]:
    """Every model with its published configuration and derived parameter count and KV bytes per token."""
    return list(MODELS)


def pairings() -> list[Pairing]:
    """Every target/draft pairing, with c = P_d / P_t."""
    return list(PAIRINGS)


def model(model_id: str) -> ModelConfig:
    """The model preset with this id (KeyError otherwise)."""
    return _BY_ID[model_id]

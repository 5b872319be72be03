"""Word material for the synthetic corpus: real ML/English words by part of speech, research
areas with their key words, and morphemes from which tens of thousands of technical terms are made.

Only words live here; sentences are assembled in :mod:`corpus` from templates, so no sentence of
the seeds is ever re-used.
"""

from __future__ import annotations

import random


def words(text: str) -> list[str]:
    """The words of text."""
    return text.split()


NOUNS = words("""
policy model network representation agent environment reward gradient optimization algorithm framework
method approach distribution dataset benchmark task objective loss regularization estimator variance bias
uncertainty calibration inference generalization robustness efficiency scalability convergence complexity
bound guarantee analysis theory architecture transformer attention layer embedding token sequence graph
node edge kernel feature encoder decoder manifold geometry diffusion flow sampler posterior prior
likelihood entropy divergence metric trajectory planning exploration exploitation critic actor value
function approximation label noise annotation supervision domain adaptation transfer distillation
compression quantization pruning sparsity memory cache retrieval generation reasoning alignment preference
feedback rollout prompt language vision image video audio speech text segmentation detection
classification regression clustering ranking recommendation search query robot manipulation locomotion
control controller dynamics system simulation physics protein molecule drug genome cell circuit hardware
device accelerator throughput latency scheduling routing allocation budget cost fairness privacy security
attack defense adversary perturbation watermark unlearning forgetting plasticity curriculum hypothesis
test statistic confidence interval coverage risk error accuracy precision recall performance baseline
experiment ablation evaluation simulator planner game equilibrium auction mechanism market effect
treatment intervention confounder counterfactual instrument operator solver equation matrix tensor
factorization decomposition projection subspace eigenvalue spectrum frequency signal filter sensor mesh
scene rendering camera depth pose motion map navigation swarm communication coordination consensus client
server aggregation heterogeneity pipeline module component mixture expert router head block backbone
adapter weight parameter initialization schedule step rate batch epoch iteration solution constraint
penalty multiplier surrogate relaxation oracle regret bandit arm horizon state action observation belief
history context window length scale depth width capacity expressivity stability sensitivity smoothness
invariance equivariance symmetry structure topology dimension basis coordinate space field potential
energy temperature noise schedule score density measure coupling transport barycenter distance similarity
contrast margin boundary region partition cluster prototype template anchor query key lattice grid patch
pixel voxel frame clip caption answer question instruction demonstration trace proof lemma theorem
conjecture assumption condition regime phase transition threshold limit rate order bound lower upper
worst case average sample sampler particle chain walk process martingale filter smoother controller
regulator observer estimator predictor classifier generator discriminator teacher student ensemble
committee vote consensus language vocabulary grammar program code compiler test suite repository patch
bug agent tool environment interface user preference population individual group subgroup cohort patient
clinic hospital record trial drug dose response outcome survival hazard censoring imputation missingness
shift drift anomaly outlier fault failure attack trigger backdoor poisoning jailbreak refusal hallucination
factuality truthfulness honesty toxicity bias stereotype norm value principle rubric judge critique
""")

ADJECTIVES = words("""
efficient robust scalable adaptive principled novel simple unified general generic modular hierarchical
distributed decentralized federated centralized offline online continual sequential parallel stochastic
deterministic probabilistic bayesian variational generative discriminative contrastive causal structural
spectral geometric topological differentiable convex nonconvex smooth sparse dense low-rank high-dimensional
multimodal cross-modal multilingual multi-agent single-agent model-based model-free data-driven
sample-efficient compute-efficient memory-efficient lightweight expressive interpretable explainable
faithful reliable trustworthy safe secure private fair calibrated conformal distribution-free finite-sample
asymptotic optimal suboptimal near-optimal minimax tractable intractable exact approximate implicit
explicit latent hidden observable partial noisy clean synthetic real-world large-scale small-scale
fine-grained coarse-grained local global long-horizon short-horizon temporal spatial spatio-temporal
dynamic static equivariant invariant linear nonlinear recurrent autoregressive masked discrete continuous
hybrid heterogeneous homogeneous diverse consistent inconsistent stable unstable theoretical empirical
practical systematic comprehensive extensive rigorous significant substantial competitive strong weak
zero-shot few-shot self-supervised semi-supervised unsupervised supervised weakly-supervised pretrained
fine-tuned instruction-tuned aligned misaligned adversarial cooperative competitive personalized
""")

VERBS = words("""
propose introduce present develop design derive establish prove show demonstrate analyze study
investigate formulate reformulate cast frame leverage exploit utilize combine integrate unify extend
generalize improve enhance boost accelerate reduce mitigate alleviate address tackle overcome resolve
learn train optimize estimate approximate compute construct build encode decode generate sample infer
predict classify detect segment retrieve rank align calibrate regularize constrain bound guarantee
ensure enforce preserve maintain capture model represent characterize identify quantify measure evaluate
benchmark compare outperform surpass match achieve attain enable allow support facilitate stabilize
scale distill compress prune quantize adapt transfer decompose factorize project refine update
""")

# verbs whose third person / gerund / past is irregular in spelling
_VERB_PAST = {"build": "built", "show": "shown", "cast": "cast", "frame": "framed"}

FIELDS: dict[str, list[str]] = {
    "offline reinforcement learning": words(
        "offline policy dataset support conservative value critic behavior"
    ),
    "safe reinforcement learning": words("safety constraint violation cost shield risk policy feasible"),
    "multi-agent reinforcement learning": words("agent cooperation coordination communication team credit"),
    "model-based reinforcement learning": words("world model planning dynamics rollout imagination planner"),
    "policy optimization": words("policy gradient trust region clipping advantage actor critic"),
    "imitation learning": words("demonstration expert behavior cloning imitation adversarial reward"),
    "robot learning": words("robot manipulation grasping dexterous embodiment locomotion humanoid"),
    "large language models": words("language model token prompt pretraining instruction llm decoding"),
    "llm reasoning": words("reasoning chain thought verifier rollout reward math solution"),
    "preference alignment": words("preference feedback alignment reward human pairwise judge"),
    "retrieval-augmented generation": words("retrieval retriever passage evidence reranker corpus generator"),
    "efficient inference": words("cache quantization pruning latency throughput kernel serving"),
    "state space models": words("recurrence state linear scan mamba selective sequence"),
    "attention mechanisms": words("attention head softmax query key sink sparse window"),
    "mixture of experts": words("expert router gating sparse capacity load balance"),
    "diffusion models": words("diffusion denoising score noise schedule sampler guidance"),
    "flow matching": words("flow velocity transport vector field straight path"),
    "generative modeling": words("generative likelihood latent autoencoder density sampling prior"),
    "image generation": words("image pixel resolution text-to-image fidelity style editing"),
    "video understanding": words("video frame temporal clip action tracking motion"),
    "3d vision": words("point cloud mesh scene depth rendering reconstruction view"),
    "multimodal learning": words("multimodal vision language caption grounding visual alignment"),
    "object detection": words("detection box object localization anchor proposal instance"),
    "domain adaptation": words("domain shift source target adaptation unlabeled alignment"),
    "continual learning": words("continual forgetting plasticity task stream replay stability"),
    "federated learning": words("federated client server aggregation communication heterogeneity privacy"),
    "differential privacy": words("privacy noise budget clipping membership leakage secure"),
    "adversarial robustness": words("adversarial attack perturbation certified defense robustness threat"),
    "conformal prediction": words("conformal coverage calibration prediction set quantile exchangeability"),
    "uncertainty quantification": words("uncertainty calibration epistemic aleatoric ensemble confidence"),
    "causal inference": words("causal treatment effect confounder intervention counterfactual estimand"),
    "multiple hypothesis testing": words("testing discovery rate hypothesis e-value p-value rejection"),
    "bayesian inference": words("bayesian posterior prior variational mcmc likelihood evidence"),
    "optimization theory": words("convergence convex gradient descent stochastic rate step"),
    "minimax optimization": words("minimax saddle game equilibrium ascent descent lyapunov"),
    "learning theory": words("sample complexity generalization bound hypothesis class regret"),
    "online learning": words("online regret bandit adversarial feedback expert horizon"),
    "graph neural networks": words("graph node edge message passing neighborhood oversmoothing"),
    "molecular modeling": words("molecule protein drug binding conformation docking property"),
    "scientific machine learning": words("pde solver operator physics simulation surrogate neural"),
    "time series forecasting": words("time series forecasting horizon seasonal temporal sensor"),
    "recommender systems": words("recommendation user item ranking click session collaborative"),
    "speech and audio": words("speech audio acoustic speaker waveform spectrogram voice"),
    "code generation": words("code program repository bug patch test execution software"),
    "interpretability": words("interpretability circuit feature neuron probe attribution mechanistic"),
    "machine unlearning": words("unlearning forgetting removal retain forget membership erasure"),
    "hallucination and factuality": words("hallucination factuality truthful abstention knowledge claim"),
    "healthcare ai": words("clinical patient medical diagnosis health record sleep"),
    "spiking neural networks": words("spiking neuron neuromorphic spike energy hardware fault"),
    "neural odes": words("ode continuous depth solver dynamics trajectory adjoint"),
    "optimal transport": words("transport wasserstein coupling sinkhorn barycenter cost"),
    "kernel methods": words("kernel feature random rkhs gaussian process regression"),
    "game theory": words("game equilibrium nash strategy population oracle zero-sum"),
    "hashing and retrieval": words("hashing cross-modal retrieval binary code similarity noise"),
    "model editing": words("editing knowledge locate fact parameter update memory"),
    "low-rank adaptation": words("lora adapter rank finetuning parameter-efficient learning rate"),
    "training stability": words("instability spike gradient clipping optimizer warmup divergence"),
    "tokenization": words("tokenizer vocabulary token subword byte merge compression"),
    "decision-focused learning": words("decision predict-then-optimize regret solver combinatorial linear"),
    "active learning": words("active query labeling budget acquisition uncertainty pool"),
}

# morphemes of generated technical terms ("hyperplexion", "neurotensic", ...)
_PREFIXES = words("""
hyper meta poly neuro quasi proto iso auto contra multi semi ortho para pseudo omni micro nano geo
chrono spectro thermo electro bio cyber photo stocho topo morpho crypto tele holo xeno allo homo
hetero endo exo mega giga tri tetra penta hexa cardio hemo lumi
""")
_ROOTS = words("""
graph morph tens vect flux kern lex spectr cod gram plex phas sign form tract fer duct sim lumin
vor quant nom mod struct lign tort scop pict dyn gen log ton cycl trop stas kin ferr lith mat
cept serv vert stat path phor sperm cline fract plan mer dom crit cort quor riz tess volv
""")
_NOUN_SUFFIXES = ["on", "ia", "ism", "ity", "ation", "ator", "oid", "ome", "ics", "ance", "ure", "ex", "ant"]
_ADJ_SUFFIXES = ["al", "ic", "ive", "ous", "ar", "ent", "oid"]


def technical_terms(rng: random.Random, count: int) -> tuple[list[str], list[str]]:
    """About count distinct generated nouns and a tenth as many adjectives, shuffled by rng."""
    nouns: set[str] = set()
    adjs: set[str] = set()
    for p in _PREFIXES:
        for r in _ROOTS:
            for s in _NOUN_SUFFIXES:
                nouns.add(_join(p, r, s))
            for s in _ADJ_SUFFIXES:
                adjs.add(_join(p, r, s))
    noun_list = sorted(nouns)
    adj_list = sorted(adjs)
    rng.shuffle(noun_list)
    rng.shuffle(adj_list)
    return noun_list[:count], adj_list[: max(1, count // 10)]


def _join(prefix: str, root: str, suffix: str) -> str:
    glue = "" if prefix[-1] in "aeiou" or root[0] in "aeiou" else "o"
    word = prefix + glue + root
    if word[-1] in "aeiou" and suffix[0] in "aeiou":
        word = word[:-1]
    return word + suffix


def plural(noun: str) -> str:
    """English plural of a (single or hyphenated) noun."""
    irregular = {
        "analysis": "analyses",
        "hypothesis": "hypotheses",
        "matrix": "matrices",
        "data": "data",
        "index": "indices",
        "criterion": "criteria",
        "phenomenon": "phenomena",
    }
    if noun in irregular:
        return irregular[noun]
    if noun.endswith(("s", "x", "ch", "sh")):
        return noun + "es"
    if noun.endswith("y") and noun[-2:-1] not in "aeiou":
        return noun[:-1] + "ies"
    return noun + "s"


def third_person(verb: str) -> str:
    """'propose' -> 'proposes'."""
    return plural(verb)


def gerund(verb: str) -> str:
    """'propose' -> 'proposing'."""
    if verb.endswith("e") and not verb.endswith("ee"):
        return verb[:-1] + "ing"
    return verb + "ing"


def past(verb: str) -> str:
    """'propose' -> 'proposed'."""
    if verb in _VERB_PAST:
        return _VERB_PAST[verb]
    if verb.endswith("e"):
        return verb + "d"
    if verb.endswith("y") and verb[-2:-1] not in "aeiou":
        return verb[:-1] + "ied"
    return verb + "ed"

"""Field-wide acronyms: names an abstract uses but never introduces as its own method.

A short name is the method an abstract introduces (RACER, STAR-KV); "LLM", "PPO" or "CIFAR"
in a "we propose" sentence are not it. Where the list came from: collected by hand while
short names were tuned on the bundled seeds (ICML-style RL/ML abstracts) and real conference
abstracts -- acronyms of models, methods, benchmarks and datasets, hardware and units,
organisations and formats that abstracts of the field use without defining them, and vision's
(NeRF, LiDAR, SDF, HOI, TTA) from the even half of the development corpus. A word is
matched upper-cased, also with a plural "s" ("LLMs"). Add to it when a field's common acronym
is taken for a method's name.
"""

from __future__ import annotations

_WORDS = """
    AI ML NLP CV RL DRL MARL MBRL IRL LLM LM VLM MLLM VLA GNN CNN RNN LSTM MLP GAN VAE SSM MOE FFN
    MDP POMDP SOTA GPU TPU CPU API SGD ADAM ADAMW PPO DPO GRPO DAPO TRPO SAC TD3 DQN SFT RLHF RLVR
    KL OOD IID RAG KV BERT GPT VIT LORA ODE SDE PDE MCMC MCTS SMC OPE DR EEG FM PSG UDA CMH UMM CDNN
    TTT GLA AIL BC CP CRC FDR GBI SBI SNIS EMA MSE SVD PCA RKHS RELU GLU SNN FPGA ICU DNA RNA RCT AMCE
    PL PAC BIBO LTI LPV NTK CVAR GDRO IMAGENET PYTORCH GITHUB DEEPMIND MUJOCO MATH GSM8K AIME CIFAR
    MNIST SVG EOS USA UK EU SUTVA MPJPE QWEN LLAMA NVIDIA HTTP HTTPS URL PDF ID IO OS SQL JSON XML
    HTML CSS UI UX PHD AUC ROC MAP MRR NDCG BLEU ROUGE FID IS LPIPS SSIM PSNR IOU MIOU FLOPS FP16
    FP32 FP8 FP4 BF16 INT8 TFLOPS GB MB TB CUDA RAM SVM KNN CRF HMM EM VI ELBO KKT LP QP MILP NP PTAS
    DAG TSP VRP CVRP SWE GFLOWNET GFLOWNETS SSL SIMCLR CLIP DINO SAM YOLO GCP PE DOW CN SMAC SMACV2
    2D 3D 4D NERF LIDAR RGB RGBD DOF RAW SDF UDF TSDF MVS TTA AU U-NET UNET BRDF HOI SLAM SFM MAE DETR
    VQA HDR LDR SR ISP FFHQ COCO KITTI KD NAS VOS SOD REID ZSL FSL OVD ASR TTS OCR AR VR IMU SMPL
    DNN DDPM MMWAVE
"""
GENERIC: frozenset[str] = frozenset(_WORDS.split())

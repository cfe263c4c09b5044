/* run.c's two files, embedded in the firmware (in L2) and served by llama2c_shim.c. */
    .section .rodata.llama2c_files, "a"
    .balign 64
    .globl tsr_llama2c_model, tsr_llama2c_model_end
tsr_llama2c_model:
    .incbin TSR_LLAMA2C_MODEL_FILE
tsr_llama2c_model_end:
    .balign 4
    .globl tsr_llama2c_tokenizer, tsr_llama2c_tokenizer_end
tsr_llama2c_tokenizer:
    .incbin TSR_LLAMA2C_TOKENIZER_FILE
tsr_llama2c_tokenizer_end:
